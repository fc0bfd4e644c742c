// A restricted unpickler for torch.save'd state_dicts (see TorchPickle.h for why not LibTorch's).
// It runs the pickle machine over plain objects: None, bools, ints, floats, strings, tuples,
// lists, dicts, globals, storages (persistent ids), tensors and opaque results of unknown calls.
// Known calls: collections.OrderedDict and builtins.dict (an empty dict),
// torch._utils._rebuild_tensor_v2 / _rebuild_tensor (a tensor over a storage),
// torch._utils._rebuild_parameter and torch._tensor._rebuild_from_type_v2 (their tensor).
// BUILD's state is dropped (an OrderedDict's `_metadata`). Deliberately not supported:
// protocol 0/1 text opcodes other than the few torch never writes anyway, quantized and sparse
// tensors, and storages of dtypes that safetensors cannot name.
//
// The input is untrusted. Every object is owned by the Unpickler (one flat list) and referenced
// by raw pointers, so a self-referential pickle (a list that contains itself through the memo)
// cannot leak and freeing a deeply nested one is a loop, not a recursion. The only recursion
// (_rebuild_from_type_v2 calling the function it wraps) has a depth bound, and every size, offset
// and stride of a tensor is checked against its storage with overflow-checked arithmetic before
// any byte is read or allocated.
#include "model/torchscript/TorchPickle.h"
#include "tensor/TensorData.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

namespace lattice {

namespace {

struct PyObject;
using Obj = PyObject*; ///< Owned by the Unpickler that made it.

struct StorageRef {
  DType dtype = DType::F32;
  std::string key;
};

struct TensorRef {
  StorageRef storage;
  int64_t offset = 0;
  std::vector<int64_t> size;
  std::vector<int64_t> stride;
};

struct PyObject {
  enum class Kind : unsigned char {
    None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Global, Storage, Tensor, Opaque
  };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0.0;
  std::string s; ///< Str/Bytes text, Global and Opaque "module.name"
  std::vector<Obj> items;
  std::vector<std::pair<Obj, Obj>> dict;
  StorageRef storage;
  TensorRef tensor;
};

/// How deep _rebuild_from_type_v2 may wrap a rebuild call; torch writes one level.
constexpr int kMaxCallDepth = 16;

const char* kindName(PyObject::Kind kind) {
  static const char* const names[] = {"None", "bool", "int", "float", "str", "bytes", "tuple",
                                      "list", "dict", "global", "storage", "tensor", "object"};
  return names[static_cast<int>(kind)];
}

std::optional<DType> storageDType(const std::string& global) {
  static const std::map<std::string, DType> types = {
      {"torch.FloatStorage", DType::F32}, {"torch.DoubleStorage", DType::F64},
      {"torch.HalfStorage", DType::F16},  {"torch.BFloat16Storage", DType::BF16},
      {"torch.LongStorage", DType::I64},  {"torch.IntStorage", DType::I32},
      {"torch.ShortStorage", DType::I16}, {"torch.CharStorage", DType::I8},
      {"torch.ByteStorage", DType::U8},   {"torch.BoolStorage", DType::Bool}};
  auto it = types.find(global);
  return it == types.end() ? std::nullopt : std::optional<DType>(it->second);
}

class Unpickler {
public:
  Unpickler(const std::string& data, std::string file) : m_data(data), m_file(std::move(file)) {}

  /// The result; it and everything it references live as long as the Unpickler.
  Obj run() {
    while (true) {
      const uint8_t op = byte();
      if (op == '.') return pop();
      step(op);
    }
  }

  [[noreturn]] void fail(const std::string& what) const { throw Exception{m_file + ": data.pkl: " + what}; }

private:
  const uint8_t* take(std::size_t n) {
    if (n > m_data.size() - m_pos) fail("truncated pickle");
    const auto* p = reinterpret_cast<const uint8_t*>(m_data.data() + m_pos);
    m_pos += n;
    return p;
  }
  uint8_t byte() { return *take(1); }
  uint64_t little(std::size_t n) {
    const uint8_t* p = take(n);
    uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }
  // take() checks the length against the bytes left before anything is allocated.
  std::string text(uint64_t n) {
    if (n > m_data.size() - m_pos) fail("truncated pickle");
    return std::string(reinterpret_cast<const char*>(take(static_cast<std::size_t>(n))), static_cast<std::size_t>(n));
  }
  std::string line() {
    const std::size_t end = m_data.find('\n', m_pos);
    if (end == std::string::npos) fail("truncated pickle");
    std::string s = m_data.substr(m_pos, end - m_pos);
    m_pos = end + 1;
    return s;
  }

  Obj make(PyObject::Kind kind) {
    m_objects.push_back(std::make_unique<PyObject>());
    m_objects.back()->kind = kind;
    return m_objects.back().get();
  }

  void push(Obj o) { m_stack.push_back(o); }
  Obj pop() {
    if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back())) fail("stack underflow");
    Obj o = m_stack.back();
    m_stack.pop_back();
    return o;
  }
  Obj top() {
    if (m_stack.empty()) fail("stack underflow");
    return m_stack.back();
  }
  std::vector<Obj> popMark() {
    if (m_marks.empty()) fail("no mark on the stack");
    const std::size_t mark = m_marks.back();
    m_marks.pop_back();
    std::vector<Obj> items(m_stack.begin() + static_cast<std::ptrdiff_t>(mark), m_stack.end());
    m_stack.resize(mark);
    return items;
  }
  Obj expect(Obj o, PyObject::Kind kind, const char* context) {
    if (o->kind != kind)
      fail(std::string(context) + ": expected a " + kindName(kind) + ", found " + kindName(o->kind));
    return o;
  }

  Obj scalar(PyObject::Kind kind, int64_t i) {
    Obj o = make(kind);
    o->i = i;
    return o;
  }
  Obj string(PyObject::Kind kind, std::string s) {
    Obj o = make(kind);
    o->s = std::move(s);
    return o;
  }
  Obj sequence(PyObject::Kind kind, std::vector<Obj> items) {
    Obj o = make(kind);
    o->items = std::move(items);
    return o;
  }
  Obj global(std::string module, const std::string& name) {
    if (module == "__builtin__") module = "builtins";
    return string(PyObject::Kind::Global, module + "." + name);
  }

  void setItems(Obj dict, const std::vector<Obj>& kv) {
    expect(dict, PyObject::Kind::Dict, "SETITEMS");
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) dict->dict.emplace_back(kv[i], kv[i + 1]);
  }

  void step(uint8_t op) {
    using K = PyObject::Kind;
    switch (op) {
    case 0x80: byte(); break;                    // PROTO
    case 0x95: take(8); break;                   // FRAME
    case '(': m_marks.push_back(m_stack.size()); break;
    case 'N': push(make(K::None)); break;
    case 0x88: push(scalar(K::Bool, 1)); break;
    case 0x89: push(scalar(K::Bool, 0)); break;
    case 'J': push(scalar(K::Int, static_cast<int32_t>(little(4)))); break;
    case 'K': push(scalar(K::Int, byte())); break;
    case 'M': push(scalar(K::Int, static_cast<int64_t>(little(2)))); break;
    case 0x8a: case 0x8b: {                      // LONG1, LONG4: little-endian two's complement
      const uint64_t n = op == 0x8a ? byte() : little(4);
      if (n > 8) fail("integer of " + std::to_string(n) + " bytes");
      uint64_t v = n ? little(static_cast<std::size_t>(n)) : 0;
      if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);
      push(scalar(K::Int, static_cast<int64_t>(v)));
      break;
    }
    case 'G': {                                  // BINFLOAT, big-endian
      const uint8_t* p = take(8);
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
      Obj o = make(K::Float);
      std::memcpy(&o->f, &bits, 8);
      push(o);
      break;
    }
    case 'X': push(string(K::Str, text(little(4)))); break;
    case 0x8c: push(string(K::Str, text(byte()))); break;
    case 0x8d: push(string(K::Str, text(little(8)))); break;
    case 'T': push(string(K::Str, text(little(4)))); break;
    case 'U': push(string(K::Str, text(byte()))); break;
    case 'B': push(string(K::Bytes, text(little(4)))); break;
    case 'C': push(string(K::Bytes, text(byte()))); break;
    case 0x8e: push(string(K::Bytes, text(little(8)))); break;
    case '}': push(make(K::Dict)); break;
    case ']': push(make(K::List)); break;
    case ')': push(make(K::Tuple)); break;
    case 't': push(sequence(K::Tuple, popMark())); break;
    case 'l': push(sequence(K::List, popMark())); break;
    case 0x85: case 0x86: case 0x87: {
      std::vector<Obj> items(op - 0x84);
      for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop();
      push(sequence(K::Tuple, std::move(items)));
      break;
    }
    case 'd': {
      std::vector<Obj> kv = popMark();
      Obj dict = make(K::Dict);
      setItems(dict, kv);
      push(dict);
      break;
    }
    case 'a': { Obj v = pop(); expect(top(), K::List, "APPEND")->items.push_back(v); break; }
    case 'e': {
      std::vector<Obj> items = popMark();
      Obj list = expect(top(), K::List, "APPENDS");
      list->items.insert(list->items.end(), items.begin(), items.end());
      break;
    }
    case 's': {
      std::vector<Obj> kv(2);
      kv[1] = pop();
      kv[0] = pop();
      setItems(top(), kv);
      break;
    }
    case 'u': { std::vector<Obj> kv = popMark(); setItems(top(), kv); break; }
    // The memo holds at most one entry per PUT opcode, so it is bounded by the input's length.
    case 'q': m_memo[byte()] = top(); break;
    case 'r': m_memo[little(4)] = top(); break;
    case 0x94: { const uint64_t id = m_memo.size(); m_memo[id] = top(); break; }
    case 'h': case 'j': {
      auto it = m_memo.find(op == 'h' ? byte() : little(4));
      if (it == m_memo.end()) fail("reference to an unknown memo entry");
      push(it->second);
      break;
    }
    case 'c': { std::string module = line(); push(global(module, line())); break; }
    case 0x93: {                                 // STACK_GLOBAL
      Obj name = pop();
      Obj module = pop();
      push(global(expect(module, K::Str, "STACK_GLOBAL")->s, expect(name, K::Str, "STACK_GLOBAL")->s));
      break;
    }
    case 'R': case 0x81: { Obj args = pop(); Obj callable = pop(); push(call(callable, args, 0)); break; }
    case 'b': pop(); break;                      // BUILD: the state is not needed
    case 'Q': { Obj pid = pop(); push(persistent(pid)); break; }
    case '0': pop(); break;
    case '1': popMark(); break;
    case '2': push(top()); break;
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      fail(std::string("unsupported pickle opcode ") + hex);
    }
    }
  }

  /// `depth` counts the _rebuild_from_type_v2 wrappers around this call: its arguments may
  /// reference themselves through the memo, so the unwrapping must be bounded.
  Obj call(Obj callable, Obj args, int depth) {
    using K = PyObject::Kind;
    const std::string name = callable->kind == K::Global ? callable->s : std::string();
    const std::vector<Obj>& a = args->items;
    if (name == "collections.OrderedDict" || name == "builtins.dict") return make(K::Dict);
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      if (a.size() < 4 || a[0]->kind != K::Storage || a[1]->kind != K::Int)
        fail(name + ": unexpected arguments");
      Obj t = make(K::Tensor);
      t->tensor.storage = a[0]->storage;
      t->tensor.offset = a[1]->i;
      t->tensor.size = ints(a[2], name);
      t->tensor.stride = ints(a[3], name);
      if (t->tensor.size.size() != t->tensor.stride.size()) fail(name + ": size and stride differ in length");
      return t;
    }
    if ((name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state") &&
        !a.empty())
      return a[0];
    if (name == "torch._tensor._rebuild_from_type_v2" && a.size() >= 3) {
      if (depth >= kMaxCallDepth) fail(name + ": rebuild calls nested too deeply (a self-referential pickle?)");
      return call(a[0], a[2], depth + 1);
    }
    return string(K::Opaque, name.empty() ? std::string("object") : name);
  }

  std::vector<int64_t> ints(Obj tuple, const std::string& context) {
    std::vector<int64_t> out;
    if (tuple->kind != PyObject::Kind::Tuple) fail(context + ": expected a tuple of ints");
    for (Obj item : tuple->items) {
      if (item->kind != PyObject::Kind::Int) fail(context + ": expected a tuple of ints");
      out.push_back(item->i);
    }
    return out;
  }

  /// ('storage', torch.FloatStorage, '0', 'cpu', numel) → the storage `data/0`.
  Obj persistent(Obj pid) {
    using K = PyObject::Kind;
    const auto& a = pid->items;
    if (pid->kind != K::Tuple || a.size() < 3 || a[0]->kind != K::Str || a[0]->s != "storage" ||
        a[2]->kind != K::Str)
      fail("unsupported persistent id (expected a storage)");
    const std::string type = a[1]->kind == K::Global ? a[1]->s : std::string("?");
    const auto dtype = storageDType(type);
    if (!dtype) fail("storage '" + a[2]->s + "': unsupported storage type '" + type + "'");
    Obj o = make(K::Storage);
    o->storage = {*dtype, a[2]->s};
    return o;
  }

  const std::string& m_data;
  std::string m_file;
  std::size_t m_pos = 0;
  std::vector<std::unique_ptr<PyObject>> m_objects; ///< every object made; freed in one loop
  std::vector<Obj> m_stack;
  std::vector<std::size_t> m_marks;
  std::map<uint64_t, Obj> m_memo;
};

/// A TensorData for `ref` over its storage bytes: a view when row-major contiguous, else a copy.
/// Throws Exception when the offset, sizes and strides reach outside the storage (checked
/// without overflow), and refuses a copy of more elements than the storage holds (an expanded
/// tensor, e.g. stride 0), which would let a tiny file demand an arbitrarily large allocation.
TensorData materialize(const TensorRef& ref, const TorchStorageBytes& bytes, const std::string& where) {
  const DType dtype = ref.storage.dtype;
  const std::size_t item = dtypeSize(dtype);
  const int64_t available = static_cast<int64_t>(bytes.size / item);
  const std::string tooSmall = where + ": storage '" + ref.storage.key + "' (" + std::to_string(available) +
                               " elements) is too small for the tensor's offset, size and stride";
  if (ref.offset < 0 || ref.offset > available)
    throw Exception{where + ": storage offset " + std::to_string(ref.offset) + " lies outside storage '" +
                    ref.storage.key + "' (" + std::to_string(available) + " elements)"};
  const int64_t numel = shapeNumel(ref.size);
  if (numel < 0) throw Exception{where + ": invalid shape (negative or too many elements)"};
  if (numel == 0) return TensorData::zeros(dtype, ref.size);

  bool contiguous = true;
  int64_t expected = 1; // the row-major stride of dimension d; at most numel, no overflow
  for (std::size_t d = ref.size.size(); d-- > 0;) {
    if (ref.stride[d] < 0) throw Exception{where + ": negative stride"};
    if (ref.size[d] == 1) continue; // its stride is never used
    if (ref.stride[d] != expected) contiguous = false;
    expected *= ref.size[d];
  }
  const int64_t last = lastStridedIndex(ref.offset, ref.size, ref.stride); // -1 on overflow
  if (last < 0 || last >= available) throw Exception{tooSmall};
  const uint8_t* base = bytes.data + static_cast<std::size_t>(ref.offset) * item;
  // Contiguous: numel elements from offset end at `last` < available, so the view is in bounds.
  if (contiguous)
    return TensorData::view(dtype, ref.size, base, static_cast<std::size_t>(numel) * item, bytes.keepAlive);
  if (numel > available - ref.offset)
    throw Exception{where + ": a non-contiguous tensor of " + std::to_string(numel) +
                    " elements over storage '" + ref.storage.key + "' of " + std::to_string(available) +
                    " elements (repeated elements, e.g. a stride of 0) is not supported; save a "
                    "contiguous copy (tensor.contiguous())"};
  // Every index below is at most last - offset, which was checked above.
  std::vector<uint8_t> out(static_cast<std::size_t>(numel) * item);
  std::vector<int64_t> index(ref.size.size(), 0);
  for (int64_t n = 0; n < numel; ++n) {
    int64_t at = 0;
    for (std::size_t d = 0; d < index.size(); ++d) at += index[d] * ref.stride[d];
    std::memcpy(out.data() + static_cast<std::size_t>(n) * item, base + static_cast<std::size_t>(at) * item, item);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < ref.size[d]) break;
      index[d] = 0;
    }
  }
  return TensorData::owning(dtype, ref.size, std::move(out));
}

} // namespace

Expected<std::vector<NamedTensor>>
unpickleTorchTensors(const std::string& pickle, const TorchStorageLoader& load, const std::string& file) {
  try {
    Unpickler unpickler(pickle, file); // owns every object below until the function returns
    Obj root = unpickler.run();
    using K = PyObject::Kind;
    if (root->kind != K::Dict)
      unpickler.fail(std::string("expected a dict of tensors (a state_dict), found a ") +
                     kindName(root->kind));
    // Chosen after the loop: the loop must not change the dict it iterates.
    Obj inner = nullptr;
    for (const auto& [key, value] : root->dict)
      if (key->kind == K::Str && key->s == "state_dict" && value->kind == K::Dict) inner = value;
    if (inner) root = inner;

    std::map<std::string, TorchStorageBytes> storages;
    std::vector<NamedTensor> out;
    for (const auto& [key, value] : root->dict) {
      if (key->kind != K::Str)
        unpickler.fail(std::string("state_dict key is a ") + kindName(key->kind) + ", not a str");
      const std::string where = file + ": '" + key->s + "'";
      if (value->kind != K::Tensor)
        throw Exception{where + " is not a tensor (" + kindName(value->kind) + ")"};
      const TensorRef& ref = value->tensor;
      auto it = storages.find(ref.storage.key);
      if (it == storages.end()) it = storages.emplace(ref.storage.key, load(ref.storage.key)).first;
      out.push_back({key->s, materialize(ref, it->second, where)});
    }
    return out;
  } catch (const Exception& e) {
    return makeError(e.message);
  }
}

} // namespace lattice
