// ArtifactValue and the two flattening rules of lowering.md §2.3/§2.4. The flattening follows
// torch.utils._pytree: lists, tuples and dict values (insertion order) are containers, everything
// else (None included) is a leaf. Slices are leaves too (pytree does not descend into them).

#include "lowering/ArtifactValue.h"

#include <algorithm>
#include <set>

namespace lattice {
namespace {

template <typename Fn> void forEachLeaf(const fx::Value& v, Fn& fn) {
  switch (v.kind()) {
  case fx::Value::Kind::List:
  case fx::Value::Kind::Tuple:
    for (const fx::Value& item : v.items())
      forEachLeaf(item, fn);
    break;
  case fx::Value::Kind::Dict:
    for (const auto& kv : v.dictItems())
      forEachLeaf(kv.second, fn);
    break;
  default:
    fn(v);
    break;
  }
}

} // namespace

ArtifactValue::ArtifactValue(Kind kind, ValueId id, std::string name, TypeText type,
                             std::optional<int64_t> channels, std::string dtype)
    : m_kind(kind), m_id(id), m_name(std::move(name)), m_type(type), m_channels(channels),
      m_dtype(std::move(dtype)) {}

std::string ArtifactValue::typeName() const {
  return "ArtifactValue";
}

std::string ArtifactValue::repr() const {
  return "ArtifactValue(%" + m_name + ": " + std::string(artifactKindName(m_kind)) +
         ", channels=" + (m_channels ? std::to_string(*m_channels) : std::string("None")) +
         ", dtype=" + m_dtype + ")";
}

std::string_view artifactKindName(ArtifactValue::Kind kind) {
  return kind == ArtifactValue::Kind::Sparse ? "sparse_tensor" : "dense_tensor";
}

std::string elementTypeOf(std::string_view type) {
  const std::size_t dtypePos = type.find("dtype = ");
  if (dtypePos != std::string_view::npos) {
    const std::size_t begin = dtypePos + 8;
    const std::size_t end = type.find_first_of(",>", begin);
    return std::string(type.substr(begin, end == std::string_view::npos ? end : end - begin));
  }
  const std::size_t open = type.find('<');
  const std::size_t close = type.rfind('>');
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open) return {};
  std::string_view inner = type.substr(open + 1, close - open - 1);
  const std::size_t x = inner.rfind('x');
  // The element type follows the last dimension separator; element types themselves contain no
  // 'x' (f32, i64, bf16, ...). A rank-0 type has no separator.
  return std::string(x == std::string_view::npos ? inner : inner.substr(x + 1));
}

fx::Value toFxValue(ArtifactValuePtr value) {
  return fx::Value::object(std::move(value));
}

ArtifactValuePtr artifactValueOf(const fx::Value& v) {
  if (v.kind() != fx::Value::Kind::Object) return nullptr;
  return std::dynamic_pointer_cast<const ArtifactValue>(v.asObject());
}

std::vector<ArtifactValuePtr> gatherArtifactValues(const fx::ValueList& args, const fx::Kwargs& kwargs) {
  std::vector<ArtifactValuePtr> out;
  auto keep = [&out](const fx::Value& leaf) {
    if (ArtifactValuePtr value = artifactValueOf(leaf)) out.push_back(std::move(value));
  };
  for (const fx::Value& arg : args)
    forEachLeaf(arg, keep);
  for (const auto& kv : kwargs)
    forEachLeaf(kv.second, keep);
  return out;
}

Expected<std::vector<ArtifactValuePtr>> flattenArtifactOutputs(const fx::Value& result) {
  std::vector<ArtifactValuePtr> out;
  std::set<std::string> unsupported; // sorted and distinct, like sorted(set(...))
  bool anyLeaf = false;
  auto visit = [&](const fx::Value& leaf) {
    anyLeaf = true;
    if (ArtifactValuePtr value = artifactValueOf(leaf))
      out.push_back(std::move(value));
    else
      unsupported.insert(leaf.typeName());
  };
  forEachLeaf(result, visit);
  if (!anyLeaf) return makeError("lattice artifact model produced no tensor outputs");
  if (!unsupported.empty()) {
    std::string names;
    for (const std::string& name : unsupported)
      names += (names.empty() ? "" : ", ") + name;
    return makeError("lattice artifact outputs must all be tensors; unsupported: " + names);
  }
  return out;
}

} // namespace lattice
