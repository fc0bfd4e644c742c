#pragma once
/// \file The recursive value used for FX node arguments, module attributes, signature defaults
/// and interpreter results (fx-archive.md "Values"). One type serves both the graph (where
/// `NodeRef` points at a producer) and the interpreter (where references are replaced by the
/// producers' values and `Object` carries things like symbolic artifact values).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
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

  Value() noexcept = default; ///< None
  Value(const Value& other) = default;
  Value(Value&& other) noexcept = default;
  /// Copy, then move: `v = v.items()[0]` assigns a value that lives inside the one it replaces.
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;

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

  bool asBool() const { return asInt() != 0; }
  /// Bool and Int payloads; 0 for other kinds.
  int64_t asInt() const { return scalar<int64_t>(); }
  /// Float payloads; 0.0 for other kinds.
  double asFloat() const { return scalar<double>(); }
  /// String, DType, Device and Repr payloads; empty for other kinds.
  const std::string& asString() const;
  Node* asNode() const { return scalar<Node*>(); }
  /// List, Tuple and Slice (3 items) elements; empty for other kinds. The mutable overloads are for
  /// values of the matching kind: on another kind they return an empty scratch list whose
  /// contents are not kept (a value only has the payload of its kind).
  const ValueList& items() const;
  ValueList& items();
  const Kwargs& dictItems() const;
  Kwargs& dictItems();
  const std::shared_ptr<const Object>& asObject() const;

  /// Python-style name of the value's type ("int", "NoneType", "tuple", or the Object's).
  std::string typeName() const;

  /// Deep structural equality (node references compare by pointer, objects by pointer).
  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }

private:
  /// None: monostate; Bool, Int: int64_t; Float: double; NodeRef: Node*; String, DType, Device,
  /// Repr: std::string; List, Tuple, Slice: ValueList; Dict: Kwargs; Object: its pointer.
  using Payload = std::variant<std::monostate, int64_t, double, Node*, std::string, ValueList, Kwargs,
                               std::shared_ptr<const Object>>;
  Value(Kind kind, Payload payload) : m_kind(kind), m_payload(std::move(payload)) {}
  template <typename T> T scalar() const {
    const T* p = std::get_if<T>(&m_payload);
    return p ? *p : T{};
  }

  Kind m_kind = Kind::None;
  Payload m_payload;
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
