#pragma once
/// \file The recursive value used for FX node arguments, module attributes, signature defaults
/// and interpreter results (fx-archive.md "Values"). One type serves both the graph (where
/// `NodeRef` points at a producer) and the interpreter (where references are replaced by the
/// producers' values and `Object` carries things like symbolic artifact values).
///
/// Values are copied for every argument a tracer or interpreter passes along, so a Value keeps
/// only its kind's payload alive: the string, list, dict or object share one union, and copying,
/// moving or destroying a scalar or node reference touches none of them (64 bytes, not 128).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lattice::fx {

class Node;

/// Base for opaque interpreter values (symbolic artifact values, tensors, ...).
class Object {
public:
  virtual ~Object();
  /// Python-like type name used in messages ("ArtifactValue", "Tensor").
  virtual std::string typeName() const = 0;
  /// Text shown by printers and the studio.
  virtual std::string repr() const;
};

class Value;
using ValueList = std::vector<Value>;
using Kwargs = std::vector<std::pair<std::string, Value>>; ///< insertion-ordered

class Value {
public:
  enum class Kind : unsigned char {
    None, Bool, Int, Float, String, NodeRef, List, Tuple, Dict, Slice, DType, Device, Repr, Object
  };

  Value() noexcept {} ///< None
  // Inline for the common payload-free kinds (a node reference, a number): a few moves, no call.
  Value(const Value& other) {
    if (holdsPayload(other.m_kind))
      copyFrom(other);
    else
      copyScalars(other);
  }
  Value(Value&& other) noexcept {
    if (holdsPayload(other.m_kind))
      moveFrom(std::move(other));
    else
      copyScalars(other);
  }
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;
  ~Value() {
    if (holdsPayload(m_kind)) destroyPayload();
  }

  static Value none() { return Value(); }
  static Value boolean(bool v);
  static Value integer(int64_t v);
  static Value floating(double v);
  static Value string(std::string v);
  static Value node(Node* n);
  static Value list(ValueList items);
  static Value tuple(ValueList items);
  static Value dict(Kwargs items);
  /// start, stop, step (each may be None).
  static Value slice(Value start, Value stop, Value step);
  static Value dtype(std::string name);  ///< "float32"
  static Value device(std::string name); ///< "cpu"
  static Value repr(std::string text);   ///< opaque
  static Value object(std::shared_ptr<const Object> object);

  Kind kind() const { return m_kind; }
  bool isNone() const { return m_kind == Kind::None; }
  bool isNode() const { return m_kind == Kind::NodeRef; }
  bool isSequence() const { return m_kind == Kind::List || m_kind == Kind::Tuple; }

  bool asBool() const { return m_int != 0; }
  int64_t asInt() const { return m_int; }
  double asFloat() const { return m_float; }
  /// String, DType, Device and Repr payloads; empty for other kinds.
  const std::string& asString() const { return holdsString(m_kind) ? m_string : emptyString(); }
  Node* asNode() const { return m_node; }
  /// List, Tuple and Slice (3 items) elements; empty for other kinds. The mutable overloads are for
  /// values of the matching kind: on another kind they return an empty scratch list whose
  /// contents are not kept (a value only has the payload of its kind).
  const ValueList& items() const { return holdsItems(m_kind) ? m_items : emptyItems(); }
  ValueList& items() { return holdsItems(m_kind) ? m_items : scratchItems(); }
  const Kwargs& dictItems() const { return m_kind == Kind::Dict ? m_dict : emptyDict(); }
  Kwargs& dictItems() { return m_kind == Kind::Dict ? m_dict : scratchDict(); }
  const std::shared_ptr<const Object>& asObject() const {
    return m_kind == Kind::Object ? m_object : emptyObject();
  }

  /// Python-style name of the value's type ("int", "NoneType", "tuple", or the Object's).
  std::string typeName() const;

  /// Deep structural equality (node references compare by pointer, objects by pointer).
  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }

private:
  static bool holdsString(Kind k) {
    return k == Kind::String || k == Kind::DType || k == Kind::Device || k == Kind::Repr;
  }
  static bool holdsItems(Kind k) { return k == Kind::List || k == Kind::Tuple || k == Kind::Slice; }
  /// Kinds with a member of the union alive: all but None, Bool, Int, Float and NodeRef.
  static bool holdsPayload(Kind k) {
    constexpr unsigned scalars = 1u << unsigned(Kind::None) | 1u << unsigned(Kind::Bool) |
                                 1u << unsigned(Kind::Int) | 1u << unsigned(Kind::Float) |
                                 1u << unsigned(Kind::NodeRef);
    return ((1u << unsigned(k)) & scalars) == 0;
  }
  static const std::string& emptyString();
  static const ValueList& emptyItems();
  static const Kwargs& emptyDict();
  static const std::shared_ptr<const Object>& emptyObject();
  static ValueList& scratchItems();
  static Kwargs& scratchDict();

  /// A value of kind `kind` whose payload member (if the kind has one) is alive and empty.
  explicit Value(Kind kind);
  /// Ends the life of the payload member of m_kind, if any (m_kind itself is left as is).
  void destroyPayload() noexcept;
  /// With no payload alive here: takes other's kind, scalars and a copy / the contents of its payload.
  void copyFrom(const Value& other);
  void moveFrom(Value&& other) noexcept;
  /// With no payload alive here: takes the kind and scalars of `other`, which has no payload.
  void copyScalars(const Value& other) noexcept {
    m_int = other.m_int;
    m_float = other.m_float;
    m_node = other.m_node;
    m_kind = other.m_kind;
  }

  Kind m_kind = Kind::None;
  // Scalars stay separate fields (not in the union): asInt() of a Float is 0, as it always was.
  int64_t m_int = 0;
  double m_float = 0.0;
  Node* m_node = nullptr;
  union {
    std::string m_string;                   ///< String, DType, Device, Repr
    ValueList m_items;                      ///< List, Tuple, Slice
    Kwargs m_dict;                          ///< Dict
    std::shared_ptr<const Object> m_object; ///< Object
  };
};

/// Calls `fn` for every node reference in `v`, depth first, left to right.
template <typename Fn>
void forEachNode(const Value& v, Fn&& fn) {
  switch (v.kind()) {
  case Value::Kind::NodeRef: fn(v.asNode()); break;
  case Value::Kind::List:
  case Value::Kind::Tuple:
  case Value::Kind::Slice:
    for (const Value& item : v.items()) forEachNode(item, fn);
    break;
  case Value::Kind::Dict:
    for (const auto& kv : v.dictItems()) forEachNode(kv.second, fn);
    break;
  default: break;
  }
}

/// Returns a copy of `v` with every node reference replaced by `fn(node)` (a Value).
template <typename Fn>
Value mapNodes(const Value& v, Fn&& fn) {
  switch (v.kind()) {
  case Value::Kind::NodeRef: return fn(v.asNode());
  case Value::Kind::List:
  case Value::Kind::Tuple:
  case Value::Kind::Slice: {
    Value copy = v;
    for (Value& item : copy.items()) item = mapNodes(item, fn);
    return copy;
  }
  case Value::Kind::Dict: {
    Value copy = v;
    for (auto& kv : copy.dictItems()) kv.second = mapNodes(kv.second, fn);
    return copy;
  }
  default: return v;
  }
}

/// Python `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16
/// ("1e-05", "0.1", "1.0", "1e+16", "inf", "nan").
std::string pythonFloatRepr(double v);

/// Python `repr()`: nodes print as their name (`%name` when `nodePrefix`), strings quoted
/// like Python (single quotes unless the text holds one), tuples with a trailing comma for one
/// item, `torch.float32` for dtypes, `device(type='cpu')` for devices, `slice(a, b, c)`. Used by
/// `return` lines and the tabular view (Node::format prints arguments with `str()` like torch).
std::string pythonRepr(const Value& v, bool nodePrefix);

/// Python `str()` of a value: a string is its own text, a device its name ("cpu"); everything
/// else as `pythonRepr(v, false)`. torch.fx prints placeholder defaults and `return` this way.
std::string pythonStr(const Value& v);

} // namespace lattice::fx
