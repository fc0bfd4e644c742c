// Function lowerings (lowering.md §4) keyed by canonical function name (fx-archive.md: the
// defining module + qualname, `_operator` written `operator`), and the builder helpers they use:
// sparseBinary, sparseCat, sparseReindex, voxelize, devoxelize. Result names are the reference's
// fixed stems (`add`, `cat_1`, `voxelize`, ...; §2.5) — the writer's counter uniques repeats.
// `operator.getitem` is structural and belongs to the interpreter, not here.

#include "lowering/LoweringSupport.h"

#include "dialect/MlirTypes.h"
#include "lowering/Names.h"

#include <absl/container/flat_hash_map.h>


namespace lattice::lowering {
namespace {

using Kind = ArtifactValue::Kind;

const fx::Value* kwarg(const fx::Kwargs& kwargs, const std::string& name) {
  for (const auto& [key, value] : kwargs)
    if (key == name) return &value;
  return nullptr;
}

/// `_artifact_arg(args, kwargs, name, position)`: kwargs[name], else args[position], and it must
/// be an ArtifactValue: "<fn> artifact requires symbolic argument '<name>'."
ArtifactValuePtr namedOperand(const char* fn, const fx::ValueList& args, const fx::Kwargs& kwargs,
                              const std::string& name, std::size_t position) {
  const fx::Value* v = kwarg(kwargs, name);
  if (!v && position < args.size()) v = &args[position];
  ArtifactValuePtr value = v ? artifactValueOf(*v) : nullptr;
  if (!value) fail(std::string(fn) + " artifact requires symbolic argument '" + name + "'.");
  return value;
}

std::string strKwarg(const fx::Kwargs& kwargs, const char* name, const char* fallback) {
  const fx::Value* v = kwarg(kwargs, name);
  return v ? pyStr(*v) : std::string(fallback);
}

double floatKwarg(const fx::Kwargs& kwargs, const char* name, double fallback) {
  const fx::Value* v = kwarg(kwargs, name);
  return v ? pyFloat(*v) : fallback;
}

using FunctionLoweringFn = ArtifactValuePtr (*)(TorchLatticeArtifactBuilder&, const fx::ValueList&,
                                                const fx::Kwargs&);

template <const char* Op, const char* DefaultJoin>
ArtifactValuePtr lowerBinary(TorchLatticeArtifactBuilder& b, const fx::ValueList& args,
                             const fx::Kwargs& kwargs) {
  const std::vector<ArtifactValuePtr> values = gatherArtifactValues(args, kwargs);
  if (values.size() != 2)
    fail(std::string("lattice ") + Op + " artifact requires exactly two sparse values.");
  return must(b.sparseBinary(Op, values[0], values[1], Op, strKwarg(kwargs, "join", DefaultJoin),
                             floatKwarg(kwargs, "lhs_fill", 0.0), floatKwarg(kwargs, "rhs_fill", 0.0)));
}

constexpr char kAdd[] = "add", kSub[] = "sub", kMul[] = "mul", kMaximum[] = "maximum", kMinimum[] = "minimum";
constexpr char kOuter[] = "outer", kInner[] = "inner";

ArtifactValuePtr lowerCat(TorchLatticeArtifactBuilder& b, const fx::ValueList& args,
                          const fx::Kwargs& kwargs) {
  const std::vector<ArtifactValuePtr> values = gatherArtifactValues(args, kwargs);
  if (values.size() < 2) fail("lattice cat artifact requires at least two sparse values.");
  const std::string join = strKwarg(kwargs, "join", "inner");
  ArtifactValuePtr out = values[0];
  for (std::size_t i = 1; i < values.size(); ++i)
    out = must(b.sparseCat("cat_" + std::to_string(i), out, values[i], join));
  return out;
}

ArtifactValuePtr lowerVoxelize(TorchLatticeArtifactBuilder& b, const fx::ValueList& args,
                               const fx::Kwargs& kwargs) {
  const ArtifactValuePtr points = namedOperand("voxelize", args, kwargs, "points", 0);
  const ArtifactValuePtr features = namedOperand("voxelize", args, kwargs, "features", 1);
  const ArtifactValuePtr batch = namedOperand("voxelize", args, kwargs, "batch_indices", 2);
  const ArtifactValuePtr active = namedOperand("voxelize", args, kwargs, "active_rows", 3);
  const fx::Value* voxelSize = kwarg(kwargs, "voxel_size");
  const fx::Value* origin = kwarg(kwargs, "origin");
  const fx::Value* stride = kwarg(kwargs, "stride");
  return must(b.voxelize("voxelize", points, features, batch, active,
                         voxelSize ? floatTriple(*voxelSize) : std::array<double, 3>{1.0, 1.0, 1.0},
                         origin ? floatTriple(*origin) : std::array<double, 3>{0.0, 0.0, 0.0},
                         strKwarg(kwargs, "reduction", "mean"),
                         stride ? intTriple(*stride) : std::array<int64_t, 3>{1, 1, 1}));
}

ArtifactValuePtr lowerDevoxelize(TorchLatticeArtifactBuilder& b, const fx::ValueList& args,
                                 const fx::Kwargs& kwargs) {
  const ArtifactValuePtr points = namedOperand("devoxelize", args, kwargs, "points", 0);
  const ArtifactValuePtr voxels = namedOperand("devoxelize", args, kwargs, "voxels", 1);
  const ArtifactValuePtr batch = namedOperand("devoxelize", args, kwargs, "batch_indices", 2);
  const ArtifactValuePtr active = namedOperand("devoxelize", args, kwargs, "point_active_rows", 3);
  const fx::Value* voxelSize = kwarg(kwargs, "voxel_size");
  const fx::Value* origin = kwarg(kwargs, "origin");
  return must(b.devoxelize("devoxelize", points, voxels, batch, active,
                           voxelSize ? floatTriple(*voxelSize) : std::array<double, 3>{1.0, 1.0, 1.0},
                           origin ? floatTriple(*origin) : std::array<double, 3>{0.0, 0.0, 0.0},
                           strKwarg(kwargs, "interpolation", "nearest")));
}

ArtifactValuePtr lowerReindex(TorchLatticeArtifactBuilder& b, const fx::ValueList& args,
                              const fx::Kwargs& kwargs) {
  const ArtifactValuePtr input = namedOperand("reindex_sparse", args, kwargs, "input", 0);
  const ArtifactValuePtr target = namedOperand("reindex_sparse", args, kwargs, "target", 1);
  return must(b.sparseReindex("reindex", input, target, floatKwarg(kwargs, "fill", 0.0)));
}

struct FunctionLowering {
  std::string name;
  FunctionLoweringFn fn;
};

// §1.2(a) table order.
const std::vector<FunctionLowering>& registry() {
  static const std::vector<FunctionLowering> rows = {
      {"torch_lattice.operators.cat", lowerCat},
      {"operator.add", lowerBinary<kAdd, kOuter>},
      {"torch.add", lowerBinary<kAdd, kOuter>},
      {"torch_lattice.operators.generative_add", lowerBinary<kAdd, kOuter>},
      {"torch_lattice.operators.sparse_add", lowerBinary<kAdd, kOuter>},
      {"operator.sub", lowerBinary<kSub, kOuter>},
      {"torch.sub", lowerBinary<kSub, kOuter>},
      {"torch_lattice.operators.sparse_sub", lowerBinary<kSub, kOuter>},
      {"operator.mul", lowerBinary<kMul, kInner>},
      {"torch.mul", lowerBinary<kMul, kInner>},
      {"torch_lattice.operators.sparse_mul", lowerBinary<kMul, kInner>},
      {"torch.maximum", lowerBinary<kMaximum, kInner>},
      {"torch_lattice.operators.sparse_maximum", lowerBinary<kMaximum, kInner>},
      {"torch.minimum", lowerBinary<kMinimum, kInner>},
      {"torch_lattice.operators.sparse_minimum", lowerBinary<kMinimum, kInner>},
      {"torch_lattice.nn.functional.voxelize.voxelize", lowerVoxelize},
      {"torch_lattice.nn.functional.devoxelize.devoxelize", lowerDevoxelize},
      {"torch_lattice.operators.reindex_sparse", lowerReindex},
  };
  return rows;
}

// Other spellings of the same callables (the reference looks functions up by identity, so an
// alias is the same lowering): `_operator.*` from _get_qualified_name, and the public aliases.
const absl::flat_hash_map<std::string, std::string>& aliases() {
  static const absl::flat_hash_map<std::string, std::string> map = [] {
    absl::flat_hash_map<std::string, std::string> m;
    for (const char* op : {"add", "sub", "mul"})
      m[std::string("_operator.") + op] = std::string("operator.") + op;
    for (const char* fn : {"cat", "generative_add", "sparse_add", "sparse_sub", "sparse_mul",
                           "sparse_maximum", "sparse_minimum", "reindex_sparse"})
      m[std::string("torch_lattice.") + fn] = std::string("torch_lattice.operators.") + fn;
    for (const char* fn : {"voxelize", "devoxelize"}) {
      const std::string canonical = std::string("torch_lattice.nn.functional.") + fn + "." + fn;
      m[std::string("torch_lattice.") + fn] = canonical;
      m[std::string("torch_lattice.nn.functional.") + fn] = canonical;
    }
    return m;
  }();
  return map;
}

const FunctionLowering* findFunction(const std::string& target) {
  static const absl::flat_hash_map<std::string, const FunctionLowering*> byName = [] {
    absl::flat_hash_map<std::string, const FunctionLowering*> m;
    for (const FunctionLowering& row : registry())
      m.emplace(row.name, &row);
    return m;
  }();
  auto it = byName.find(target);
  if (it != byName.end()) return it->second;
  auto alias = aliases().find(target);
  return alias == aliases().end() ? nullptr : byName.at(alias->second);
}

} // namespace

std::string canonicalFunctionName(const std::string& target) {
  const FunctionLowering* row = findFunction(target);
  return row ? row->name : std::string();
}

const std::vector<std::string>& functionLoweringNameList() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const FunctionLowering& row : registry())
      out.push_back(row.name);
    return out;
  }();
  return names;
}

ArtifactValuePtr lowerFunctionCall(TorchLatticeArtifactBuilder& b, const std::string& target,
                                   const fx::ValueList& args, const fx::Kwargs& kwargs) {
  const FunctionLowering* row = findFunction(target);
  if (!row) fail("unsupported FX function for lattice artifact: " + target);
  return row->fn(b, args, kwargs);
}

} // namespace lattice::lowering

namespace lattice {

namespace {

using lowering::fail;
using lowering::must;
using lowering::requireKind;
using Kind = ArtifactValue::Kind;

template <typename Fn> Expected<ArtifactValuePtr> guard(Fn&& fn) {
  try {
    return fn();
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

I64Array toI64(const std::array<int64_t, 3>& t) {
  return I64Array(t.begin(), t.end());
}
F64Array toF64(const std::array<double, 3>& t) {
  return F64Array(t.begin(), t.end());
}

} // namespace

Expected<ArtifactValuePtr>
TorchLatticeArtifactBuilder::sparseBinary(const std::string& name, const ArtifactValuePtr& lhs,
                                          const ArtifactValuePtr& rhs, const std::string& op,
                                          const std::string& join, double lhsFill, double rhsFill) {
  return guard([&] {
    requireKind(lhs, Kind::Sparse, "sparse " + op + " lhs");
    requireKind(rhs, Kind::Sparse, "sparse " + op + " rhs");
    if (lhs->channels() && rhs->channels() && *lhs->channels() != *rhs->channels())
      fail("sparse " + op + " requires matching channel counts.");
    // `lhs.channels or rhs.channels`: 0 and None are both falsy.
    const std::optional<int64_t> channels = lhs->channels().value_or(0) ? lhs->channels() : rhs->channels();
    OpRecord rec;
    rec.op = std::string(opName(OpKind::SparseBinary));
    rec.operands = {lhs->id(), rhs->id()};
    rec.attributes = {{"op", op}, {"join", join}, {"lhs_fill", lhsFill}, {"rhs_fill", rhsFill}};
    rec.resultStems = {safeValueName(name)};
    rec.resultTypes = {sparseTensorType(inputDtype())};
    return makeValue(must(emitOp(rec)).front(), Kind::Sparse, channels, inputDtype());
  });
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseCat(const std::string& name,
                                                                  const ArtifactValuePtr& lhs,
                                                                  const ArtifactValuePtr& rhs,
                                                                  const std::string& join) {
  return guard([&] {
    requireKind(lhs, Kind::Sparse, "sparse cat lhs");
    requireKind(rhs, Kind::Sparse, "sparse cat rhs");
    std::optional<int64_t> channels;
    if (lhs->channels() && rhs->channels()) channels = *lhs->channels() + *rhs->channels();
    OpRecord rec;
    rec.op = std::string(opName(OpKind::SparseCat));
    rec.operands = {lhs->id(), rhs->id()};
    rec.attributes = {{"join", join}};
    rec.resultStems = {safeValueName(name)};
    rec.resultTypes = {sparseTensorType(inputDtype())};
    return makeValue(must(emitOp(rec)).front(), Kind::Sparse, channels, inputDtype());
  });
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::sparseReindex(const std::string& name,
                                                                      const ArtifactValuePtr& input,
                                                                      const ArtifactValuePtr& target,
                                                                      double fill) {
  return guard([&] {
    requireKind(input, Kind::Sparse, "sparse reindex input");
    requireKind(target, Kind::Sparse, "sparse reindex target");
    OpRecord rec;
    rec.op = std::string(opName(OpKind::SparseReindex));
    rec.operands = {input->id(), target->id()};
    rec.attributes = {{"fill", fill}};
    rec.resultStems = {safeValueName(name)};
    rec.resultTypes = {sparseTensorType(inputDtype())};
    return makeValue(must(emitOp(rec)).front(), Kind::Sparse, input->channels(), inputDtype());
  });
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::voxelize(
    const std::string& name, const ArtifactValuePtr& points, const ArtifactValuePtr& features,
    const ArtifactValuePtr& batchIndices, const ArtifactValuePtr& activeRows, std::array<double, 3> voxelSize,
    std::array<double, 3> origin, const std::string& reduction, std::array<int64_t, 3> stride) {
  return guard([&] {
    requireKind(points, Kind::Dense, "points");
    requireKind(features, Kind::Dense, "features");
    requireKind(batchIndices, Kind::Dense, "batch_indices");
    requireKind(activeRows, Kind::Dense, "active_rows");
    OpRecord rec;
    rec.op = std::string(opName(OpKind::Voxelize));
    rec.operands = {points->id(), features->id(), batchIndices->id(), activeRows->id()};
    rec.attributes = {{"voxel_size", toF64(voxelSize)},
                      {"origin", toF64(origin)},
                      {"reduction", reduction},
                      {"stride", toI64(stride)}};
    rec.resultStems = {safeValueName(name)};
    rec.resultTypes = {sparseTensorType(inputDtype())};
    return makeValue(must(emitOp(rec)).front(), Kind::Sparse, features->channels(), inputDtype());
  });
}

Expected<ArtifactValuePtr> TorchLatticeArtifactBuilder::devoxelize(
    const std::string& name, const ArtifactValuePtr& points, const ArtifactValuePtr& voxels,
    const ArtifactValuePtr& batchIndices, const ArtifactValuePtr& pointActiveRows,
    std::array<double, 3> voxelSize, std::array<double, 3> origin, const std::string& interpolation) {
  return guard([&] {
    requireKind(points, Kind::Dense, "points");
    requireKind(voxels, Kind::Sparse, "voxels");
    requireKind(batchIndices, Kind::Dense, "batch_indices");
    requireKind(pointActiveRows, Kind::Dense, "point_active_rows");
    OpRecord rec;
    rec.op = std::string(opName(OpKind::Devoxelize));
    rec.operands = {points->id(), voxels->id(), batchIndices->id(), pointActiveRows->id()};
    rec.attributes = {
        {"voxel_size", toF64(voxelSize)}, {"origin", toF64(origin)}, {"interpolation", interpolation}};
    rec.resultStems = {safeValueName(name)};
    rec.resultTypes = {featureTensorType(voxels->channels(), inputDtype())};
    return makeValue(must(emitOp(rec)).front(), Kind::Dense, voxels->channels(), inputDtype());
  });
}

} // namespace lattice
