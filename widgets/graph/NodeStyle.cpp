// Node roles from the lowering's verdicts (what a dry run of the lowering did with each node),
// and the one palette every view and panel shares.

#include "graph/NodeStyle.h"

#include <QGuiApplication>

#include "lowering/LoweringVerdicts.h"
#include "fx/Node.h"
#include "model/Model.h"

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// "torch_lattice.nn.functional.voxelize.voxelize" → "voxelize"; "operator.add" → "add".
QString shortTarget(const std::string& target) {
  const auto dot = target.rfind('.');
  return qs(dot == std::string::npos ? target : target.substr(dot + 1));
}

} // namespace

NodeRole classifyNode(const fx::Node& node, const LoweringVerdicts* verdicts) {
  switch (node.op()) {
  case fx::Op::Placeholder:
    return NodeRole::Placeholder;
  case fx::Op::GetAttr:
    return NodeRole::GetAttr;
  case fx::Op::Output:
    return NodeRole::Output;
  case fx::Op::CallMethod:
  case fx::Op::CallFunction:
  case fx::Op::CallModule:
    break;
  }
  const NodeVerdict::State state = verdicts ? verdicts->of(node.name()).state : NodeVerdict::State::Unknown;
  const bool module = node.op() == fx::Op::CallModule;
  switch (state) {
  case NodeVerdict::State::Lowered:
    return module ? NodeRole::LatticeModule : NodeRole::LoweredFunction;
  case NodeVerdict::State::Refused:
    return module ? NodeRole::OtherModule : NodeRole::Unsupported;
  default:
    return NodeRole::Unchecked;
  }
}

const NodeRoleStyle& roleStyle(NodeRole role) {
  // Colour-blind-safe hues (Okabe–Ito family), light fills so black text stays readable.
  static const NodeRoleStyle styles[] = {
      {QColor(0xcf, 0xe8, 0xfc), QColor(0x00, 0x72, 0xb2), QColor(0x0b, 0x1f, 0x33),
       QStringLiteral("module the lowering lowers"), false},
      {QColor(0xec, 0xe6, 0xf5), QColor(0x7a, 0x5c, 0xa8), QColor(0x2a, 0x1f, 0x3a),
       QStringLiteral("module the lowering refuses"), true},
      {QColor(0xd9, 0xf2, 0xe6), QColor(0x00, 0x9e, 0x73), QColor(0x0d, 0x2e, 0x22),
       QStringLiteral("function the lowering lowers"), false},
      {QColor(0xfd, 0xe0, 0xdc), QColor(0xd5, 0x3e, 0x2a), QColor(0x45, 0x10, 0x0a),
       QStringLiteral("function/method the lowering refuses"), true},
      {QColor(0xfd, 0xf1, 0xcf), QColor(0xc8, 0x8a, 0x00), QColor(0x3d, 0x2c, 0x00),
       QStringLiteral("input (placeholder)"), false},
      {QColor(0xee, 0xee, 0xea), QColor(0x80, 0x80, 0x78), QColor(0x2a, 0x2a, 0x28),
       QStringLiteral("attribute (get_attr)"), false},
      {QColor(0xf3, 0xdd, 0xea), QColor(0xcc, 0x79, 0xa7), QColor(0x3d, 0x14, 0x2c), QStringLiteral("output"),
       false},
      {QColor(0xe4, 0xea, 0xf0), QColor(0x5a, 0x6b, 0x7d), QColor(0x1c, 0x26, 0x30),
       QStringLiteral("collapsed module group"), false},
      {QColor(0xf4, 0xf4, 0xf2), QColor(0xa8, 0xa8, 0xa0), QColor(0x55, 0x55, 0x50),
       QStringLiteral("call the lowering did not reach"), false},
  };
  return styles[static_cast<int>(role)];
}

QVector<NodeRole> legendRoles() {
  return {NodeRole::LatticeModule, NodeRole::OtherModule, NodeRole::LoweredFunction, NodeRole::Unsupported,
          NodeRole::Unchecked,     NodeRole::Placeholder, NodeRole::GetAttr,         NodeRole::Output,
          NodeRole::Group};
}

QString moduleTypeOf(const fx::Node& node, const Model* model) {
  if (node.op() != fx::Op::CallModule || !model) return {};
  const ModuleInfo* module = model->module(node.target());
  return module ? qs(module->type) : QString();
}

NodeLabel nodeLabel(const fx::Node& node, const Model* model) {
  NodeLabel label;
  label.title = qs(node.name());
  switch (node.op()) {
  case fx::Op::Placeholder:
    label.subtitle = QStringLiteral("input");
    break;
  case fx::Op::GetAttr:
    label.subtitle = qs(node.target());
    break;
  case fx::Op::Output:
    label.subtitle = QStringLiteral("return");
    break;
  case fx::Op::CallMethod:
    label.subtitle = QLatin1Char('.') + qs(node.target()) + QStringLiteral("()");
    break;
  case fx::Op::CallFunction:
    label.subtitle = shortTarget(node.target());
    break;
  case fx::Op::CallModule: {
    const ModuleInfo* module = model ? model->module(node.target()) : nullptr;
    label.subtitle = module ? qs(module->className()) : qs(node.target());
    break;
  }
  }
  return label;
}

namespace palette {
bool dark() {
  return QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
}
QColor current() {
  return QColor(0xff, 0x8c, 0x00);
}
QColor breakpoint() {
  return QColor(0xd3, 0x2f, 0x2f);
}
QColor failed() {
  return QColor(0xc6, 0x28, 0x28);
}
QColor selection() {
  return dark() ? QColor(0x5c, 0x9d, 0xff) : QColor(0x1e, 0x64, 0xd8);
}
QColor searchHit() {
  return QColor(0xff, 0xd5, 0x4f);
}
QColor edge() {
  return dark() ? QColor(0x9a, 0xa4, 0xb0) : QColor(0x70, 0x78, 0x84);
}
QColor background() {
  // Light: an off-white; dark: the palette's base a little lifted, so light node boxes read.
  if (!dark()) return QColor(0xfa, 0xfa, 0xfb);
  const QColor base = QGuiApplication::palette().color(QPalette::Base);
  return base.lightness() < 24 ? QColor(0x1e, 0x20, 0x24) : base;
}
QColor cardFill(const QPalette& p) {
  QColor c = p.color(QPalette::Base);
  c.setAlpha(235);
  return c;
}
QColor cardBorder(const QPalette& p) {
  return p.color(QPalette::Mid);
}
QColor cardText(const QPalette& p) {
  return p.color(QPalette::Text);
}
} // namespace palette
} // namespace lattice::studio
