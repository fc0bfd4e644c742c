#pragma once
/// \file MlirModuleWriter: builds `graph.mlir` in the writer form (format spec sec. 3-9), byte for
/// byte what the reference text builder (lattice_contract MLIRModuleBuilder) prints.
///
/// Usage (what a lowering does):
/// \code
///   MlirModuleWriter w;
///   Expected<ValueId> coords = w.addArgument("x_coords", coordsTensorType(), "sparse_coords");
///   ...
///   const ValueId operands[] = {*coords, *features, *active};
///   const NamedAttr attributes[] = {{"stride", I64Array{1, 1, 1}}, {"coord_order", "batch_x_y_z"}};
///   const std::string stems[] = {"x"};
///   const TypeText types[] = {sparseTensorType("f32")};
///   Expected<OpResults> x = w.addOp({"sparse.make", operands, {}, attributes, stems, types});
///   w.name((*x)[0]);                             // "x"
///   ...
///   w.setReturn({head});
///   Expected<std::string> text = w.str();
/// \endcode
/// OpRecord is the same description owning its fields (tests, one-off ops); it converts to an
/// OpSpec, so every op, weights included, goes through the one addOp.
///
/// The writer keeps a table of the values it defined (arguments and op results, in definition
/// order) and hands out their indices as ValueIds. Operands are ValueIds, so an operand is
/// defined when its id is below valueCount(). Names are uniqued with one counter per stem
/// (sec. 9: `add`, `add1`; a literal `add1` stem is not checked against them, hazard H4) and held
/// by the table as owned strings. Each op is validated and rendered to its line when added, so
/// str() is a concatenation and the whole build is linear in the output size.

#include "dialect/MlirAttributes.h"
#include "dialect/TypeText.h"
#include "support/Expected.h"
#include "support/Span.h"
#include "support/StringArena.h"

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// A value the writer defined (a function argument or an op result): its index in the writer's
/// value table. Only ids the same writer handed out are meaningful to it; a default-constructed
/// id is defined by no writer.
struct ValueId {
  std::uint32_t index = std::numeric_limits<std::uint32_t>::max();
  friend bool operator==(ValueId a, ValueId b) { return a.index == b.index; }
  friend bool operator!=(ValueId a, ValueId b) { return a.index != b.index; }
};

/// The results of one op, in schema order. An op's results are defined one after another, so
/// they are consecutive ids.
struct OpResults {
  ValueId first;
  std::size_t count = 0;
  std::size_t size() const { return count; }
  ValueId operator[](std::size_t i) const { return {first.index + static_cast<std::uint32_t>(i)}; }
  ValueId front() const { return first; }
};

/// One op to emit, as views the caller keeps alive for the addOp call. Names without the
/// `lattice.` prefix and `%`/`@` sigils.
struct OpSpec {
  /// Schema op name, e.g. `conv3d`, `sparse.make`, `weight`.
  std::string_view op;
  /// SSA operands in schema order. Optional operands (bias, target) are all trailing in the
  /// schema: omit them from the end when absent. Each must be a value this writer defined.
  Span<const ValueId> operands;
  /// `lattice.weight` only: the `@sym_name` (must match `[A-Za-z_][A-Za-z0-9_$.]*`).
  std::string_view symbol;
  /// Attributes in any order; printed in schema order (sec. 8.2). Names that are not schema
  /// attributes of the op are ignored (sec. 8.1). A missing `accumulation` prints as
  /// `"canonical_f32"`; any other missing required attribute is an error.
  Span<const NamedAttr> attributes;
  /// Per schema result: the requested name stem (`.` becomes `_`), or "" (or absent) for the
  /// default stem, the op's python_name. Decompose: {"", "n_features_in", "n_active"} gives
  /// `%sparse_decompose, %n_features_in, %n_active`; {"p", "p", "p"} gives `%p, %p1, %p2`.
  Span<const std::string> resultStems;
  /// One type text per schema result (decompose: 3; every other op: 1).
  Span<const TypeText> resultTypes;
};

/// OpSpec's fields, owned.
struct OpRecord {
  std::string op;
  std::vector<ValueId> operands;
  std::string symbol;
  std::vector<NamedAttr> attributes;
  std::vector<std::string> resultStems;
  std::vector<TypeText> resultTypes;

  /// The record as an OpSpec viewing it (valid while the record lives).
  operator OpSpec() const { return {op, operands, symbol, attributes, resultStems, resultTypes}; }
};

/// An op as emitted.
struct EmittedOp {
  std::string_view op;   ///< schema op name (the schema's own string: valid for the whole run)
  std::string_view text; ///< the body line without its 4-space indent and newline, held by the
                         ///< writer (valid while the writer lives, also after it is moved)
  OpResults results;     ///< the values it defined
};

/// A function argument as emitted.
struct MlirArgument {
  ValueId value;    ///< its name is also its `lattice.input_names` entry
  std::string role; ///< `tensor`, `sparse_coords`, `sparse_features` or `sparse_active`
};

/// Builds one lattice module with a single `func.func @forward`.
class MlirModuleWriter {
public:
  /// Room for `ops` more ops without growing.
  void reserve(std::size_t ops);

  /// Appends a function argument named `name` (normalized `.`→`_` and uniqued like op results)
  /// with `role` (sec. 3.2). Errors: invalid SSA name, unknown role, type not a tensor or
  /// lattice type.
  Expected<ValueId> addArgument(std::string_view name, TypeText type, std::string role = "tensor");

  /// Validates `op` against the schema, names its results and renders its line. Returns the
  /// results (its index is opCount() - 1). Errors name the op and its first result stem; on
  /// error nothing is emitted and no name counter advances.
  Expected<OpResults> addOp(const OpSpec& op);

  /// Sets (or replaces) the returned values. `names` default to the values' SSA names and `roles`
  /// to `sparse_tensor` for `!lattice.sparse_tensor` values and `tensor` otherwise (sec. 3.2).
  /// Errors: no values, a value not defined here, names/roles of another length, names or
  /// roles with control characters.
  Status setReturn(std::vector<ValueId> values, std::vector<std::string> names = {},
                   std::vector<std::string> roles = {});

  /// The whole `graph.mlir` text (sec. 3), ending in a single `\n`. Error: no return set.
  Expected<std::string> str() const;

  /// The text built so far, for live views: str()'s layout (argumentLine/opLine hold for it)
  /// without the need for a return. Until setReturn() the output names and roles print as
  /// `[]`, the result type as `?`, and the text ends with the last op's line (or the `) -> ? {`
  /// line while there is no op) without a newline: no `return` or closing lines. Afterwards it
  /// equals str().
  std::string partialText() const;

  /// The uniqued SSA name of `id` without `%` (held by the writer); `id` must be defined here.
  std::string_view name(ValueId id) const { return m_tables->values[id.index].name; }
  /// The type of `id`; `id` must be defined here.
  TypeText type(ValueId id) const { return m_tables->values[id.index].type; }
  /// Number of values defined (arguments and op results).
  std::size_t valueCount() const { return m_tables->values.size(); }
  /// True when `id` is a value this writer defined.
  bool isDefined(ValueId id) const { return id.index < valueCount(); }

  /// Emitted arguments, in order.
  const std::vector<MlirArgument>& arguments() const { return m_arguments; }
  /// Emitted ops, in order.
  const std::vector<EmittedOp>& ops() const { return m_ops; }
  /// Number of emitted ops.
  std::size_t opCount() const { return m_ops.size(); }
  /// Returned values (empty until setReturn()).
  const std::vector<ValueId>& returnValues() const { return m_returnValues; }
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
  /// Defines a value named after the already normalized `stem`, uniqued (sec. 9).
  ValueId define(std::string_view stem, TypeText type);
  /// The attribute dict of `schema` for `attributes` (sec. 8) into m_attrDict; errors name the
  /// op by its first result stem.
  Status renderAttributes(const SchemaOp& schema, Span<const NamedAttr> attributes, std::string_view firstStem);
  /// str() without the return check (partialText when there is no return).
  std::string render() const;

  /// The value table and the sec. 9 counters. They gain a few small strings and nodes per op,
  /// so their memory comes from one monotonic resource and is released at once with the writer;
  /// they are heap-held so that moving the writer moves a pointer (and the resource stays put).
  struct Tables {
    struct Value {
      std::pmr::string name; // uniqued, without `%`
      TypeText type;
    };
    std::pmr::monotonic_buffer_resource memory;
    std::pmr::deque<Value> values{&memory}; // by ValueId (elements never move)
    /// Uses per normalized stem, keyed by the name of the value that used it first.
    absl::flat_hash_map<std::string_view, std::size_t> uses;
  };
  std::unique_ptr<Tables> m_tables = std::make_unique<Tables>();
  StringArena m_lines;                    // every op line as printed (EmittedOp::text views it)
  std::vector<std::string> m_resultStems; // the op being added: its result stems,
  std::string m_attrDict;                 // its attribute dict
  std::string m_line;                     // and its line
  std::vector<MlirArgument> m_arguments;
  std::vector<EmittedOp> m_ops;
  std::vector<ValueId> m_returnValues;
  std::vector<std::string> m_outputNames;
  std::vector<std::string> m_outputRoles;
};

/// `.` replaced by `_` (sec. 9 step 2).
std::string normalizeSsaStem(std::string_view stem);

/// True when `name` is an MLIR suffix-id: `[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`.
bool isValidSsaName(std::string_view name);

/// True when `symbol` matches `[A-Za-z_][A-Za-z0-9_$.]*` (hazard H3).
bool isValidSymbolName(std::string_view symbol);

} // namespace lattice
