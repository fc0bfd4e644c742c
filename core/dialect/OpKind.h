#pragma once
/// \file OpKind: the ops of the lattice dialect as an enum, in the schema's registration order,
/// with the family each belongs to. The list below is the one place the op names are spelled:
/// the schema table (DialectSchema.cpp) builds its ops from it, the reader parses a name into
/// an OpKind once, and everything else switches on the kind.

#include <cstddef>
#include <string_view>

namespace lattice {

/// What kind of work an op does; each op belongs to exactly one family.
enum class OpFamily : unsigned char {
  Weight, ///< `lattice.weight`: a tensor of the weight file
  Sparse, ///< `lattice.sparse.*`: building, taking apart and combining sparse tensors
  Conv,   ///< the sparse convolutions (a weight applied over a kernel of neighbours)
  Pool,   ///< the sparse spatial ops without a weight: pooling and upsampling
  Point,  ///< between points and voxels: voxelize, devoxelize
  Dense,  ///< per-row ops on dense tensors: linear, embedding, elementwise, softmax, activation
  Norm,   ///< batch, layer and RMS normalisation of dense rows
};

// X(Enumerator, "schema name", Family), in the schema's registration order.
#define LATTICE_DIALECT_OPS(X)                                                                               \
  X(Weight, "weight", Weight)                                                                                \
  X(SparseMake, "sparse.make", Sparse)                                                                       \
  X(SparseDecompose, "sparse.decompose", Sparse)                                                             \
  X(SparseWithFeatures, "sparse.with_features", Sparse)                                                      \
  X(SparseReindex, "sparse.reindex", Sparse)                                                                 \
  X(Conv3d, "conv3d", Conv)                                                                                  \
  X(SubmConv3d, "subm_conv3d", Conv)                                                                         \
  X(NormalizedSubmConv3d, "normalized_subm_conv3d", Conv)                                                    \
  X(TargetConv3d, "target_conv3d", Conv)                                                                     \
  X(ConvTranspose3d, "conv_transpose3d", Conv)                                                               \
  X(TargetConvTranspose3d, "target_conv_transpose3d", Conv)                                                  \
  X(NormalizedConvTranspose3d, "normalized_conv_transpose3d", Conv)                                          \
  X(TargetNormalizedConvTranspose3d, "target_normalized_conv_transpose3d", Conv)                             \
  X(GenerativeConvTranspose3d, "generative_conv_transpose3d", Conv)                                          \
  X(NormalizedGenerativeConvTranspose3d, "normalized_generative_conv_transpose3d", Conv)                     \
  X(Pool3d, "pool3d", Pool)                                                                                  \
  X(PoolTranspose3d, "pool_transpose3d", Pool)                                                               \
  X(TrilinearUpsample3d, "trilinear_upsample3d", Pool)                                                       \
  X(GlobalPool, "global_pool", Pool)                                                                         \
  X(Voxelize, "voxelize", Point)                                                                             \
  X(Devoxelize, "devoxelize", Point)                                                                         \
  X(Linear, "linear", Dense)                                                                                 \
  X(EmbeddingLookup, "embedding_lookup", Dense)                                                              \
  X(Elementwise, "elementwise", Dense)                                                                       \
  X(Softmax, "softmax", Dense)                                                                               \
  X(Activation, "activation", Dense)                                                                         \
  X(BatchNorm, "batch_norm", Norm)                                                                           \
  X(LayerNorm, "layer_norm", Norm)                                                                           \
  X(RmsNorm, "rms_norm", Norm)                                                                               \
  X(SparseBinary, "sparse.binary", Sparse)                                                                   \
  X(SparseCat, "sparse.cat", Sparse)

/// One op of the dialect; `OpKind(i)` is `dialectSchema().ops[i]`. `None` stands for an op of
/// another dialect (`func.call`) or a name the schema does not know.
enum class OpKind : unsigned char {
#define LATTICE_OP_ENUMERATOR(e, name, family) e,
  LATTICE_DIALECT_OPS(LATTICE_OP_ENUMERATOR)
#undef LATTICE_OP_ENUMERATOR
      None,
};

/// The number of ops of the dialect (every OpKind but None).
inline constexpr std::size_t kOpKindCount = static_cast<std::size_t>(OpKind::None);
static_assert(kOpKindCount == 31, "the IR v2 dialect has 31 ops (format spec sec. 7)");

/// The kind of the op called `name` (without `lattice.`: `conv3d`, `sparse.make`); None when
/// the dialect has no such op.
OpKind opKindFromName(std::string_view name);
/// The schema name of `kind` (`conv3d`); "" for None.
std::string_view opName(OpKind kind);
/// The family of `kind`. `kind` must not be None.
OpFamily opFamily(OpKind kind);

inline bool isLatticeOp(OpKind kind) {
  return kind != OpKind::None;
}
inline bool isWeightOp(OpKind kind) {
  return kind == OpKind::Weight;
}
inline bool isSparseStructureOp(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Sparse;
}
inline bool isConv(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Conv;
}
inline bool isPool(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Pool;
}
inline bool isPointOp(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Point;
}
inline bool isDenseOp(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Dense;
}
inline bool isNorm(OpKind kind) {
  return isLatticeOp(kind) && opFamily(kind) == OpFamily::Norm;
}

} // namespace lattice
