// tools/zmm_pipes.cpp — which zmm instructions share an execution pipe
// (docs/cpu-jit.md, "AVX-512 math"). For each instruction: ns per
// instruction for 12 independent chains of it alone, and with 6 of the 12
// replaced by FMAs (or adds: -DPAIR_ADD). Two instructions on different pipes
// run together at half the time each takes alone.
//   g++ -O2 -march=native tools/zmm_pipes.cpp -o /tmp/zmm_pipes && taskset -c 0 /tmp/zmm_pipes
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#ifdef PAIR_ADD
#define PAIR _mm512_add_ps(a[i], c)
#define PAIR_NAME "add"
#else
#define PAIR _mm512_fmadd_ps(a[i], m, c)
#define PAIR_NAME "fma"
#endif
#define KEEP asm volatile(""::"v"(a[0]),"v"(a[1]),"v"(a[2]),"v"(a[3]),"v"(a[4]),"v"(a[5]),"v"(a[6]),"v"(a[7]),"v"(a[8]),"v"(a[9]),"v"(a[10]),"v"(a[11]))
static __m512 m, c, t1v; static __m512i idx;
template<class F> double bench(F f){
  __m512 a[12]; for(int i=0;i<12;i++) a[i]=_mm512_set1_ps(1.0f+i*1e-3f);
  long N=100000000/12; double best=1e9;
  for(int rep=0;rep<3;rep++){
    auto t0=std::chrono::steady_clock::now();
    for(long n=0;n<N;n++){ f(a); KEEP; }
    auto t1=std::chrono::steady_clock::now();
    double ns=std::chrono::duration<double,std::nano>(t1-t0).count()/(N*12.0);
    if(ns<best) best=ns;
  }
  return best;
}
#define OP(name, expr) \
  printf("%-10s alone %.3f  ", name, bench([](__m512* a){ _Pragma("GCC unroll 12") for(int i=0;i<12;i++) a[i]=expr; })); \
  printf("with " PAIR_NAME " %.3f\n", bench([](__m512* a){ _Pragma("GCC unroll 6") for(int i=0;i<6;i++) a[i]=PAIR; _Pragma("GCC unroll 6") for(int i=6;i<12;i++) a[i]=expr; }));
int main(){
  m=_mm512_set1_ps(0.999999f); c=_mm512_set1_ps(1e-7f); t1v=_mm512_set1_ps(2.0f);
  idx=_mm512_set_epi32(0,17,2,19,4,21,6,23,8,25,10,27,12,29,14,31);
  OP("fma", _mm512_fmadd_ps(a[i],m,c));
  OP("mul", _mm512_mul_ps(a[i],m));
  OP("add", _mm512_add_ps(a[i],c));
  OP("min", _mm512_min_ps(a[i],t1v));
  OP("and", _mm512_and_ps(a[i],t1v));
  OP("perm2", _mm512_permutex2var_ps(a[i],idx,t1v));
  OP("perm1", _mm512_permutexvar_ps(idx,a[i]));
  OP("rndscale", _mm512_roundscale_ps(a[i],0));
  OP("scalef", _mm512_scalef_ps(a[i],c));
  OP("cvt", _mm512_castsi512_ps(_mm512_cvtps_epi32(a[i])));
  OP("cvtt", _mm512_cvtepi32_ps(_mm512_castps_si512(a[i])));
  OP("rcp14", _mm512_rcp14_ps(a[i]));
  OP("div", _mm512_div_ps(a[i],t1v));
  OP("getexp", _mm512_getexp_ps(a[i]));
  OP("getmant", _mm512_getmant_ps(a[i],_MM_MANT_NORM_1_2,_MM_MANT_SIGN_src));
  OP("iadd", _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(a[i]),idx)));
  OP("ishl", _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(a[i]),1)));
  OP("fixup", _mm512_fixupimm_ps(a[i],c,idx,0));
  OP("blendcmp", _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a[i],t1v,_CMP_LT_OQ),a[i],c));
  OP("xor", _mm512_xor_ps(a[i],t1v));
  OP("ternlog", _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(a[i]),idx,idx,0x96)));
}
