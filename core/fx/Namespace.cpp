// Implements torch.fx's unique naming: `Graph._target_to_str` (candidateName) and
// `_Namespace.create_name` with its per-base counter. It does not track objects (torch's `obj`
// argument is always None for node names), and a numeric suffix too long for 64 bits is kept as
// part of the base instead of being parsed.

#include "fx/Namespace.h"

#include <algorithm>
#include <cstring>

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

template <std::size_t N> bool inSortedTable(const char* const (&table)[N], const std::string& name) {
  return std::binary_search(std::begin(table), std::end(table), name.c_str(),
                            [](const char* a, const char* b) { return std::strcmp(a, b) < 0; });
}

bool isIllegalName(const std::string& name) {
  return inSortedTable(kKeywords, name) || inSortedTable(kBuiltins, name) ||
         inSortedTable(kCustomBuiltins, name);
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
  out.reserve(base.size() + 4);
  for (std::size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (i > 0 && isUpper(c) && isLower(base[i - 1])) out += '_';
    out += isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::string Namespace::createName(std::string_view rawCandidate) {
  // Runs of characters outside [0-9A-Za-z_] become one "_".
  std::string candidate;
  candidate.reserve(rawCandidate.size() + 1);
  bool inBadRun = false;
  for (const char c : rawCandidate) {
    if (isIdentChar(c)) {
      candidate += c;
      inBadRun = false;
    } else if (!inBadRun) {
      candidate += '_';
      inBadRun = true;
    }
  }
  if (candidate.empty()) candidate = "_unnamed";
  if (isDigit(candidate[0])) candidate.insert(candidate.begin(), '_');

  // `(.*)_(\d+)$`: a trailing digit run directly after an underscore.
  std::string base = candidate;
  bool hasNum = false;
  long long num = 0;
  std::size_t digitsBegin = candidate.size();
  while (digitsBegin > 0 && isDigit(candidate[digitsBegin - 1]))
    --digitsBegin;
  if (digitsBegin < candidate.size() && digitsBegin > 0 && candidate[digitsBegin - 1] == '_') {
    std::size_t first = digitsBegin;
    while (first + 1 < candidate.size() && candidate[first] == '0')
      ++first;
    if (candidate.size() - first <= 18) {
      hasNum = true;
      for (std::size_t i = first; i < candidate.size(); ++i)
        num = num * 10 + (candidate[i] - '0');
      base = candidate.substr(0, digitsBegin - 1);
    }
  }

  std::string name = hasNum ? base + "_" + std::to_string(num) : base;
  if (num == 0) {
    const long long* count = m_baseCount.find(base);
    num = count ? *count : 0;
  }
  while (m_used.contains(name) || isIllegalName(name)) {
    ++num;
    name = base + "_" + std::to_string(num);
  }
  m_used.insert(name, true);
  m_baseCount[base] = num;
  return name;
}

void Namespace::reserve(const std::string& name) {
  m_used.insert(name, true);
}

} // namespace lattice::fx
