// Implements torch.fx's unique naming: `Graph._target_to_str` (candidateName) and
// `_Namespace.create_name` with its per-base counter. Each name records the node holding it, for
// the graph's lookup by name; torch's reuse of an object's earlier name is not modelled (its
// `obj` argument is always None for node names). A numeric suffix too long for 64 bits is kept
// as part of the base instead of being parsed.

#include "fx/Namespace.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <charconv>

namespace lattice::fx {
namespace {

// Python 3.11 `keyword.kwlist`, sorted.
// clang-format off
const char* const kKeywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
};

// Python 3.11 `dir(builtins)` (the keys of builtins.__dict__), sorted.
const char* const kBuiltins[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
    "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError",
    "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
    "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
    "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError",
    "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
    "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError",
    "__build_class__", "__debug__", "__doc__", "__import__", "__loader__", "__name__",
    "__package__", "__spec__", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool",
    "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
    "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
    "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash",
    "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license",
    "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord",
    "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr",
    "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
};

// torch.fx `_custom_builtins` names, sorted.
const char* const kCustomBuiltins[] = {"NoneType", "device", "fx_pytree", "inf", "nan", "pytree", "torch"};
// clang-format on

/// Python keywords, builtins and torch.fx's custom builtins: names createName never hands out.
const absl::flat_hash_set<std::string_view>& illegalNames() {
  static const absl::flat_hash_set<std::string_view> names = [] {
    absl::flat_hash_set<std::string_view> s(std::begin(kKeywords), std::end(kKeywords));
    s.insert(std::begin(kBuiltins), std::end(kBuiltins));
    s.insert(std::begin(kCustomBuiltins), std::end(kCustomBuiltins));
    return s;
  }();
  return names;
}

bool isIdentChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

/// Appends "_<n>" (decimal) to `name`.
void appendSuffix(std::string& name, long long n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  name += '_';
  name.append(digits, end);
}

} // namespace

std::string candidateName(Op op, std::string_view target) {
  std::string_view base;
  switch (op) {
  case Op::Output:
    base = "output";
    break;
  case Op::CallFunction: {
    // torch uses the callable's __name__ (no dunder stripping for functions).
    const auto dot = target.rfind('.');
    base = dot == std::string_view::npos ? target : target.substr(dot + 1);
    break;
  }
  default:
    base = target;
    // torch `_is_magic`: starts and ends with "__" -> op[2:-2].
    if (base.size() >= 2 && base.substr(0, 2) == "__" && base.substr(base.size() - 2) == "__")
      base = base.size() >= 4 ? base.substr(2, base.size() - 4) : std::string_view();
    break;
  }
  // torch `_snake_case`: "_" before an upper-case letter preceded by a lower-case one, then lower.
  std::string out;
  out.reserve(base.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (i > 0 && isUpper(c) && isLower(base[i - 1])) out += '_';
    out += isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::string Namespace::createName(std::string name, Node* owner) {
  // Runs of characters outside [0-9A-Za-z_] become one "_" (in place: never longer).
  std::size_t kept = 0;
  bool inBadRun = false;
  for (const char c : name) {
    if (isIdentChar(c)) {
      name[kept++] = c;
      inBadRun = false;
    } else if (!inBadRun) {
      name[kept++] = '_';
      inBadRun = true;
    }
  }
  name.resize(kept);
  if (name.empty()) name = "_unnamed";
  if (isDigit(name[0])) name.insert(name.begin(), '_');

  // `(.*)_(\d+)$`: a trailing digit run directly after an underscore. The base is the prefix
  // name[0, baseLength); the suffix is rewritten without leading zeros ("x_007" -> "x_7").
  std::size_t baseLength = name.size();
  long long num = 0;
  std::size_t digitsBegin = name.size();
  while (digitsBegin > 0 && isDigit(name[digitsBegin - 1]))
    --digitsBegin;
  if (digitsBegin < name.size() && digitsBegin > 0 && name[digitsBegin - 1] == '_') {
    std::size_t first = digitsBegin;
    while (first + 1 < name.size() && name[first] == '0')
      ++first;
    if (name.size() - first <= 18) {
      for (std::size_t i = first; i < name.size(); ++i)
        num = num * 10 + (name[i] - '0');
      baseLength = digitsBegin - 1;
      name.erase(digitsBegin, first - digitsBegin); // now "<base>_<num>", e.g. "x_007" -> "x_7"
    }
  }

  long long& count = m_baseCount[name.substr(0, baseLength)];
  if (num == 0) num = count;
  // Inserting is the "is it taken" test: it succeeds exactly for the name handed out.
  while (illegalNames().count(name) != 0 || !m_used.emplace(name, owner).second) {
    ++num;
    name.resize(baseLength);
    appendSuffix(name, num);
  }
  count = num;
  return name;
}

void Namespace::reserve(const std::string& name, Node* owner) {
  m_used.emplace(name, owner);
}

std::size_t Namespace::ownedCount() const {
  return static_cast<std::size_t>(
      std::count_if(m_used.begin(), m_used.end(), [](const auto& entry) { return entry.second != nullptr; }));
}

} // namespace lattice::fx
