#pragma once
/// \file LatticeArtifactInterpreter: the C++ counterpart of torch-lattice's
/// `LatticeArtifactInterpreter(fx.Interpreter)` (lowering.md §2.2). It runs a traced graph over
/// symbolic ArtifactValues: every `call_module` and supported `call_function` node becomes
/// builder calls, so running the graph builds the artifact. It is steppable (start/step/runUntil
/// from fx::Interpreter): the studio runs it node by node and shows env() and the MLIR so far.
///
/// Before each node runs, the builder's current node is set to the FX node name, so the
/// builder's provenance maps every argument, op and weight key to the node that produced it.
///
/// \code
///   LatticeArtifactInterpreter interp(model, *graph, builder);
///   interp.start({toFxValue(x)});
///   while (interp.currentNode()) { auto stepped = interp.step(); if (!stepped) break; }
///   auto outputs = flattenArtifactOutputs(interp.result());
/// \endcode

#include "lowering/TorchLatticeArtifactBuilder.h"
#include "fx/Interpreter.h"
#include "model/Model.h"

#include <memory>
#include <string>

namespace lattice {

/// The value a `get_attr` node yields: an opaque handle on a parameter, a buffer or a module of
/// the model. No lowering consumes it; as an output it is refused by flattenArtifactOutputs
/// ("... unsupported: Parameter").
class AttributeObject final : public fx::Object {
public:
  enum class Kind : unsigned char { Parameter, Buffer, Module };
  AttributeObject(Kind kind, std::string path, std::string className, const TensorData* tensor);

  Kind kind() const { return m_kind; }
  /// Qualified path of the attribute ("stem.weight") or module ("stem").
  const std::string& path() const { return m_path; }
  /// The tensor (parameters and buffers); nullptr for modules.
  const TensorData* tensor() const { return m_tensor; }
  /// "Parameter", "Tensor", or the module's class name (Python's type names).
  std::string typeName() const override;
  /// "Parameter(stem.weight: F32[3, 1, 1, 1, 2])", "Module(stem: Conv3d)".
  std::string repr() const override;

private:
  Kind m_kind;
  std::string m_path;
  std::string m_className;
  const TensorData* m_tensor; // owned by the model
};

/// Interprets a graph traced from `model` (LatticeTracer) into `builder`. The model, the graph
/// and the builder must outlive the interpreter. Handler errors are the builder's messages,
/// wrapped by fx::Interpreter as "<message>\n\nWhile executing <node>" (§2.6).
class LatticeArtifactInterpreter : public fx::Interpreter {
public:
  LatticeArtifactInterpreter(const Model& model, const fx::Graph& graph,
                             TorchLatticeArtifactBuilder& builder);

  const Model& model() const { return m_model; }
  TorchLatticeArtifactBuilder& builder() { return m_builder; }
  const TorchLatticeArtifactBuilder& builder() const { return m_builder; }

protected:
  /// Standard FX placeholder (inputs in order, then the default, else torch's error).
  fx::Value placeholder(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                        const fx::Kwargs& kwargs) override;
  /// The parameter, buffer, module or plain attribute at `target` (an AttributeObject, or the
  /// attribute's value); "Node referenced nonexistent target <path>" when there is none.
  fx::Value getAttr(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                    const fx::Kwargs& kwargs) override;
  /// `builder.lowerModule(target, module, model, gathered values)` (§2.2, §2.3); the target
  /// path is the result-name stem (§2.5).
  fx::Value callModule(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                       const fx::Kwargs& kwargs) override;
  /// `operator.getitem` on concrete lists, tuples and dicts; otherwise builder.lowerFunction,
  /// or "unsupported FX function for lattice artifact: <target>".
  fx::Value callFunction(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                         const fx::Kwargs& kwargs) override;
  /// Always "unsupported FX method for lattice artifact: <method>".
  fx::Value callMethod(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                       const fx::Kwargs& kwargs) override;
  /// Standard FX output (returns args[0]).
  fx::Value output(const fx::Node& node, const std::string& target, const fx::ValueList& args,
                   const fx::Kwargs& kwargs) override;

private:
  const Model& m_model;
  TorchLatticeArtifactBuilder& m_builder;
};

/// Python's `operator.getitem(container, index)` on interpreter values: list/tuple indexing
/// with an int (negative counts from the end) or a slice, dict lookup by string key. Throws
/// lattice::Exception with Python's message ("'ArtifactValue' object is not subscriptable",
/// "tuple index out of range", "list indices must be integers or slices, not str", "'k'").
fx::Value pythonGetItem(const fx::Value& container, const fx::Value& index);

} // namespace lattice
