#pragma once
/// \file MlirModuleWriter: builds `graph.mlir` in the writer form (format spec sec. 3-9), byte for
/// byte what the reference text builder (lattice_contract MLIRModuleBuilder) prints.
///
/// Usage (what a lowering does):
/// \code
///   MlirModuleWriter w;
///   auto coords = w.addArgument("x_coords", coordsTensorType(), "sparse_coords");
///   ...
///   const MlirValue operands[] = {*coords, *features, *active};
///   const NamedAttr attributes[] = {{"stride", I64Array{1, 1, 1}}, {"coord_order", "batch_x_y_z"}};
///   const ResultStem stems[] = {"x"};
///   const TypeText types[] = {sparseTensorType("f32")};
///   OpSpec make{"sparse.make", operands, {}, attributes, stems, types};
///   Expected<OpResults> x = w.addOp(make);       // (*x)[0].name == "x"
///   ...
///   w.setReturn({head});
///   Expected<std::string> text = w.str();
/// \endcode
/// OpRecord is the same description owning its strings (for tests and one-off ops); addOp takes
/// either.
///
/// Each op is validated and rendered to its line when added, so str() is a concatenation and the
/// whole build is linear in the output size. Names are uniqued with one counter map (sec. 9).
/// Every name the writer hands out (MlirValue::name of an argument or result) views the writer's
/// own storage: valid while the writer lives, also after it is moved.

#include "artifact/MlirAttributes.h"
#include "artifact/TypeText.h"
#include "support/Expected.h"
#include "support/StringArena.h"
#include "support/Span.h"
#include "support/StringMap.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lattice {

/// An SSA value: its name without `%` (already uniqued) and its type text (interned). The name
/// is a view: of the writer's storage for the values the writer returns, of the caller's string
/// for a value the caller builds (which must outlive the call it is passed to).
struct MlirValue {
  std::string_view name;
  TypeText type;
};

/// A result name stem given as two parts that are joined when the result is named, so a lowering
/// can ask for `{safeName, "_features"}` without building the string.
struct ResultStem {
  std::string_view head;
  std::string_view tail;
  ResultStem() = default;
  ResultStem(std::string_view stem) : head(stem) {}
  ResultStem(const std::string& stem) : head(stem) {}
  ResultStem(const char* stem) : head(stem) {}
  ResultStem(std::string_view h, std::string_view t) : head(h), tail(t) {}
  bool empty() const { return head.empty() && tail.empty(); }
};

/// One op to emit, as views the caller keeps alive for the addOp call (what the lowerings build
/// on the stack: no heap block per op). The fields mean what OpRecord's do.
struct OpSpec {
  std::string_view op;
  Span<const MlirValue> operands;
  std::string_view symbol;
  Span<const NamedAttr> attributes;
  Span<const ResultStem> resultStems;
  Span<const TypeText> resultTypes;
};

/// The results of one op (at most four), in schema order. Slots past size() are raw storage (an
/// op's results are built once per op on the hot path; MlirValue is trivially copyable).
class OpResults {
public:
  static constexpr std::size_t kCapacity = 4;
  OpResults() = default;
  OpResults(const OpResults& other) : m_size(other.m_size) {
    std::memcpy(m_storage, other.m_storage, m_size * sizeof(MlirValue));
  }
  OpResults& operator=(const OpResults& other) {
    m_size = other.m_size;
    std::memcpy(m_storage, other.m_storage, m_size * sizeof(MlirValue));
    return *this;
  }
  std::size_t size() const { return m_size; }
  const MlirValue& operator[](std::size_t i) const { return begin()[i]; }
  const MlirValue& front() const { return begin()[0]; }
  const MlirValue* begin() const { return reinterpret_cast<const MlirValue*>(m_storage); }
  const MlirValue* end() const { return begin() + m_size; }
  void push_back(const MlirValue& v) { new (m_storage + m_size++ * sizeof(MlirValue)) MlirValue(v); }

private:
  static_assert(std::is_trivially_copyable_v<MlirValue> && std::is_trivially_destructible_v<MlirValue>);
  alignas(MlirValue) unsigned char m_storage[kCapacity * sizeof(MlirValue)];
  std::size_t m_size = 0;
};

/// One op to emit. Names without the `lattice.` prefix and `%`/`@` sigils.
struct OpRecord {
  /// Schema op name, e.g. `conv3d`, `sparse.make`, `weight`.
  std::string op;
  /// SSA operands in schema order. Optional operands (bias, target) are all trailing in the
  /// schema: omit them from the end when absent. Each must be a value this writer defined.
  std::vector<MlirValue> operands;
  /// `lattice.weight` only: the `@sym_name` (must match `[A-Za-z_][A-Za-z0-9_$.]*`).
  std::string symbol;
  /// Attributes in any order; printed in schema order (sec. 8.2). Names that are not schema
  /// attributes of the op are ignored (sec. 8.1). A missing `accumulation` prints as
  /// `"canonical_f32"`; any other missing required attribute is an error.
  std::vector<NamedAttr> attributes;
  /// Per schema result: the requested name stem (`.` becomes `_`), or "" (or absent) for the
  /// default stem, the op's python_name. Decompose: {"", "n_features_in", "n_active"} gives
  /// `%sparse_decompose, %n_features_in, %n_active`; {"p", "p", "p"} gives `%p, %p1, %p2`.
  std::vector<std::string> resultStems;
  /// One type text per schema result (decompose: 3; every other op: 1).
  std::vector<TypeText> resultTypes;
};

/// `record` as an OpSpec viewing it; the result stems are put in `stems` (keep both alive while
/// the spec is used).
OpSpec specOf(const OpRecord& record, std::vector<ResultStem>& stems);

/// An op as emitted.
struct EmittedOp {
  std::string_view op;   ///< schema op name (the schema's own string: valid for the whole run)
  std::string_view text; ///< the body line without its 4-space indent and newline, held by the
                         ///< writer (valid while the writer lives, also after it is moved)
};

/// A function argument as emitted.
struct MlirArgument {
  MlirValue value;  ///< uniqued name (also its `lattice.input_names` entry) and type
  std::string role; ///< `tensor`, `sparse_coords`, `sparse_features` or `sparse_active`
};

/// Builds one lattice module with a single `func.func @forward`.
class MlirModuleWriter {
  static constexpr std::size_t kMaxResultStems = OpResults::kCapacity;

public:
  /// Room for `ops` more ops and `names` more distinct result stems without growing (a lowering
  /// that knows its graph's size calls it first: growing moves every op record and rehashes every
  /// name).
  void reserve(std::size_t ops, std::size_t names) {
    m_ops.reserve(m_ops.size() + ops);
    m_nameCounts.reserve(m_nameCounts.size() + names);
  }

  /// Appends a function argument named `name` (normalized `.`→`_` and uniqued like op results)
  /// with `role` (sec. 3.2). Errors: invalid SSA name, unknown role, type not a tensor or
  /// lattice type.
  Expected<MlirValue> addArgument(std::string_view name, TypeText type, std::string role = "tensor");

  /// Validates `op` against the schema, names its results and renders its line. Returns the
  /// results (its index is opCount() - 1). Errors name the op and its first result stem; on
  /// error nothing is emitted and no name counter advances.
  Expected<OpResults> addOp(const OpSpec& op);
  /// addOp for the owning description.
  Expected<std::vector<MlirValue>> addOp(const OpRecord& record);

  /// addOp for a `lattice.weight` (one per stored parameter) without building an OpRecord: the
  /// result stem and the symbol are `symbol`, the attributes `storage_key`, `layout` and
  /// `packing`. The same checks, messages and text as addOp with that record.
  Expected<MlirValue> addWeight(std::string_view symbol, std::string_view storageKey, std::string_view layout,
                                const PackingAttr& packing, TypeText type);

  /// Sets (or replaces) the returned values. `names` default to the values' SSA names and `roles`
  /// to `sparse_tensor` for `!lattice.sparse_tensor` values and `tensor` otherwise (sec. 3.2).
  /// Errors: no values, a value not defined here, names/roles of another length, names or
  /// roles with control characters.
  Status setReturn(std::vector<MlirValue> values, std::vector<std::string> names = {},
                   std::vector<std::string> roles = {});

  /// The sec. 9 counter: normalizes `stem` (`.`→`_`), returns `stem`, `stem1`, `stem2`, ... on
  /// successive calls (a view of the writer's storage). addArgument and addOp call it
  /// themselves; call it directly only to reserve a name without emitting anything (it advances
  /// the shared counter).
  std::string_view uniqueName(std::string_view stem);

  /// The whole `graph.mlir` text (sec. 3), ending in a single `\n`. Error: no return set.
  Expected<std::string> str() const;

  /// The text built so far, for live views: str()'s layout (argumentLine/opLine hold for it)
  /// without the need for a return. Until setReturn() the output names and roles print as
  /// `[]`, the result type as `?`, and the text ends with the last op's line (or the `) -> ? {`
  /// line while there is no op) without a newline: no `return` or closing lines. Afterwards it
  /// equals str().
  std::string partialText() const;

  /// Emitted arguments, in order.
  const std::vector<MlirArgument>& arguments() const { return m_arguments; }
  /// Emitted ops, in order.
  const std::vector<EmittedOp>& ops() const { return m_ops; }
  /// Number of emitted ops.
  std::size_t opCount() const { return m_ops.size(); }
  /// Returned values (empty until setReturn()).
  const std::vector<MlirValue>& returnValues() const { return m_returnValues; }
  /// True once setReturn() succeeded.
  bool hasReturn() const { return !m_returnValues.empty(); }

  /// 1-based line of argument `index` in the current str() (lines move when arguments are added
  /// later, so ask after the module is complete).
  std::size_t argumentLine(std::size_t index) const;
  /// 1-based line of op `index` in the current str(); for FX node ↔ MLIR provenance.
  std::size_t opLine(std::size_t index) const;
  /// 1-based line of the `return` in the current str().
  std::size_t returnLine() const;

private:
  /// True when uniqueName handed out `name` (every argument and result is named by it).
  bool isDefined(std::string_view name) const;
  /// The schema op named `op`; the last few lookups are remembered by the name's address (the
  /// lowerings pass string literals), confirmed by comparing the name.
  const SchemaOp* findOp(std::string_view op);
  /// The `, layout = ..., packing = ...}` end of a weight's attribute dict (sec. 8), remembered
  /// per (layout, packing); errors name the attribute.
  Expected<std::string_view> weightAttrTail(std::string_view layout, const PackingAttr& packing);
  /// str() without the return check (partialText when there is no return).
  std::string render() const;
  /// uniqueName of a stem that is already normalized.
  std::string_view nameFor(std::string_view normalizedStem) { return nameFor(normalizedStem, m_nameCounts.hashKey(normalizedStem)); }
  /// Name counters, grouped by numbered prefix once reserve() makes them large: a module's stems
  /// share it ("blocks_3_1_features_in").
  using NameCounts = StringMap<std::size_t, KeyGrouping::ByNumberedPrefix>;
  using StemHash = NameCounts::KeyHash;
  /// nameFor of a stem whose hash is `h` (computed early to prefetch its counter).
  std::string_view nameFor(std::string_view normalizedStem, const StemHash& h);
  /// The normalized stem `stem` joins to, in `scratch` when it has to be built.
  static std::string_view joinedStem(const ResultStem& stem, std::string& scratch);
  /// The attribute dict of `schema` for `attributes` (sec. 8), from the cache or rendered into
  /// it; errors are prefixed with `context` (the op and its first result name).
  Expected<std::string_view> attributeDict(const SchemaOp& schema, Span<const NamedAttr> attributes,
                                           std::string_view firstStem);

  /// The pieces of one op line, copied once into a string of their total size.
  class Pieces {
  public:
    /// A line has at most 2 pieces per result name, result type, operand name and operand type,
    /// and 12 fixed ones (addOp allows 16 operands and 4 results).
    static constexpr std::size_t kCapacity = 2 * (16 + 16 + 4 + 4) + 12;
    void clear() { m_count = 0, m_size = 0; }
    void add(std::string_view piece) { m_pieces[m_count++] = piece, m_size += piece.size(); }
    /// `%a, %b`.
    void names(Span<const MlirValue> values);
    /// `t1, t2`.
    void types(Span<const MlirValue> values);
    /// The line, copied once into `arena`.
    std::string_view storeIn(StringArena& arena) const;

  private:
    std::array<std::string_view, kCapacity> m_pieces;
    std::size_t m_count = 0;
    std::size_t m_size = 0;
  };

  struct FoundOp {
    const char* name = nullptr; // where the name was
    const SchemaOp* op = nullptr;
  };
  std::array<FoundOp, 16> m_foundOps{}; // findOp's cache, indexed by name address bits
  struct HandedOut {
    const char* data = nullptr;
    std::size_t size = 0;
  };
  std::array<HandedOut, 64> m_handedOut{}; // recent nameFor results by address, for isDefined
  struct WeightTail {
    std::string layout;
    PackingAttr packing;
    std::string text;
  };
  std::vector<WeightTail> m_weightTails; // weightAttrTail's texts (a handful per module)
  /// The last attribute dict rendered for an op, by schema op: lowerings repeat the same
  /// attributes (every ReLU, every 3×3×3 conv), and comparing them costs less than printing.
  struct AttrCache {
    const SchemaOp* op = nullptr;
    std::vector<NamedAttr> attributes;
    std::string text;
  };
  std::array<AttrCache, 16> m_attrCache;
  std::array<std::string, kMaxResultStems> m_stemScratch; // joined/normalized stems of one op
  NameCounts m_nameCounts; // sec. 9 counter per normalized stem (keys: count-0 names)
  StringArena m_names;                 // names with a counter suffix (`add1`), returned names
  std::string m_attrScratch;           // the attribute dict of the op being added
  Pieces m_pieces;                     // the line of the op being added
  StringArena m_lines;                 // every EmittedOp::text (one heap block per 64 KiB of text)
  std::vector<MlirArgument> m_arguments;
  std::vector<EmittedOp> m_ops;
  std::vector<MlirValue> m_returnValues;
  std::vector<std::string> m_outputNames;
  std::vector<std::string> m_outputRoles;
};

/// A vector of `items` moved in, for building OpRecord fields (a braced list copies every
/// element): `op.resultStems = movedList<std::string>(s + "_features");`.
template <typename T, typename... Items> std::vector<T> movedList(Items&&... items) {
  std::vector<T> out;
  out.reserve(sizeof...(Items));
  (out.emplace_back(std::forward<Items>(items)), ...);
  return out;
}

/// `.` replaced by `_` (sec. 9 step 2).
std::string normalizeSsaStem(std::string_view stem);

/// True when `name` is an MLIR suffix-id: `[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`.
bool isValidSsaName(std::string_view name);

/// True when `symbol` matches `[A-Za-z_][A-Za-z0-9_$.]*` (hazard H3).
bool isValidSymbolName(std::string_view symbol);

} // namespace lattice
