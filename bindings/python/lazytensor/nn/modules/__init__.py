"""The layers of lazytensor.nn, one module per family as in torch.nn.modules."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .lazy import LazyModuleMixin
from .linear import Identity, Linear, LazyLinear, Bilinear
from .activation import (ReLU, ReLU6, LeakyReLU, ELU, GELU, Tanh, Sigmoid, SiLU, Mish, Softplus, Hardswish, Hardtanh,
                         Threshold, GLU, PReLU, LogSigmoid, Softsign, Tanhshrink, Hardsigmoid, SELU, CELU, Softmax,
                         LogSoftmax, Softmin, Softmax2d, MultiheadAttention, Hardshrink, Softshrink, RReLU)
from .flatten import Flatten, Unflatten
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                            LayerNorm, GroupNorm, LocalResponseNorm, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d,
                            LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d)
from .sparse import Embedding, EmbeddingBag
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, LazyConv1d, LazyConv2d,
                   LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .fold import Unfold, Fold
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, AvgPool1d, AvgPool2d,
                      AvgPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, LPPool1d, LPPool2d,
                      AdaptiveAvgPool3d)
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .padding import (ZeroPad2d, ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .channelshuffle import ChannelShuffle
from .distance import CosineSimilarity, PairwiseDistance
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, BCEWithLogitsLoss, BCELoss, KLDivLoss,
                   HuberLoss, TripletMarginLoss, MarginRankingLoss, CosineEmbeddingLoss, SoftMarginLoss,
                   MultiLabelSoftMarginLoss, HingeEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss, MultiMarginLoss,
                   MultiLabelMarginLoss, TripletMarginWithDistanceLoss)
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,
                          TransformerDecoderLayer)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity", "Linear",
           "Bilinear", "ReLU", "ReLU6", "LeakyReLU", "ELU", "GELU", "Tanh",
           "Sigmoid", "SiLU", "Mish", "Softplus", "Hardswish", "Hardtanh", "Threshold", "GLU", "PReLU", "LogSigmoid",
           "Softsign", "Tanhshrink", "Hardsigmoid", "SELU", "CELU", "Softmax", "LogSoftmax", "Softmin", "Softmax2d",
           "MultiheadAttention", "Flatten", "Unflatten", "BatchNorm1d", "BatchNorm2d", "InstanceNorm1d",
           "InstanceNorm2d", "LayerNorm", "GroupNorm", "LocalResponseNorm", "Embedding", "EmbeddingBag", "Dropout",
           "Dropout1d", "Dropout2d", "AlphaDropout", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "Unfold", "Fold", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "ZeroPad2d",
           "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle", "CosineSimilarity", "PairwiseDistance", "CrossEntropyLoss", "NLLLoss",
           "MSELoss", "L1Loss", "SmoothL1Loss", "BCEWithLogitsLoss", "BCELoss", "KLDivLoss", "HuberLoss",
           "TripletMarginLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer", "Hardshrink", "Softshrink", "RReLU", "BatchNorm3d", "InstanceNorm3d", "Dropout3d",
           "AdaptiveMaxPool1d", "LPPool1d", "LPPool2d", "AdaptiveAvgPool3d", "TripletMarginWithDistanceLoss",
           "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
