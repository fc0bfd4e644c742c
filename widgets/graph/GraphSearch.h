#pragma once
/// \file Graph search (Ctrl+F): which nodes of a traced graph match a text, by node name, by
/// target (function, method, attribute or module path) or by the called module's type.

#include <QString>
#include <QStringList>

namespace lattice {
class Model;
namespace fx {
class Graph;
}
} // namespace lattice

namespace lattice::studio {

/// Names of the nodes of `graph` whose name, target or module type (qualified, e.g.
/// "torch_lattice.nn.modules.conv.SubmConv3d", so the class name matches too) contains `text`,
/// case-insensitively, in graph order. Empty text matches nothing. `model` may be null (no
/// module types then).
QStringList searchNodes(const fx::Graph& graph, const Model* model, const QString& text);

} // namespace lattice::studio
