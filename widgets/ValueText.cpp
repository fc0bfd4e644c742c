// ValueText: summarizeValue and the two renderings of a summary (tooltip, one line).

#include "ValueText.h"

#include "lowering/ArtifactValue.h"
#include "fx/Value.h"

#include <QStringList>

namespace lattice::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

} // namespace

ValueSummary summarizeValue(const fx::Value& value) {
  ValueSummary s;
  s.repr = qs(fx::pythonRepr(value, false));
  if (ArtifactValuePtr v = artifactValueOf(value)) {
    s.symbolic = true;
    s.kind = QString::fromLatin1(artifactKindName(v->kind()).data());
    s.channels = v->channels() ? QString::number(*v->channels()) : QStringLiteral("?");
    s.dtype = qs(v->dtype());
    s.ssa = qs(v->ssa());
    s.type = qs(v->type());
    return s;
  }
  s.kind = qs(value.typeName());
  const std::vector<ArtifactValuePtr> leaves = gatherArtifactValues({value}, {});
  QStringList names;
  QStringList types;
  for (const ArtifactValuePtr& v : leaves) {
    names << qs(v->ssa());
    types << qs(v->type());
  }
  s.symbolic = !leaves.empty();
  s.ssa = names.join(QStringLiteral(", "));
  s.type = types.join(QStringLiteral(", "));
  if (leaves.empty()) s.type = s.repr; // a plain value: show it where the type would be
  return s;
}

QString valueFieldTitle(ValueField field) {
  switch (field) {
  case ValueField::Kind:
    return QStringLiteral("Kind");
  case ValueField::Channels:
    return QStringLiteral("Channels");
  case ValueField::DType:
    return QStringLiteral("DType");
  case ValueField::Ssa:
    return QStringLiteral("SSA");
  case ValueField::Type:
    return QStringLiteral("MLIR type");
  }
  return {};
}

QString valueToolTip(const ValueSummary& s) {
  QStringList lines;
  auto add = [&lines](const QString& title, const QString& text) {
    if (!text.isEmpty()) lines << title + QStringLiteral(": ") + text;
  };
  add(valueFieldTitle(ValueField::Kind), s.kind);
  if (!s.symbolic) {
    add(QStringLiteral("Value"), s.type);
    return lines.join(QLatin1Char('\n'));
  }
  add(valueFieldTitle(ValueField::Channels), s.channels);
  add(valueFieldTitle(ValueField::DType), s.dtype);
  add(valueFieldTitle(ValueField::Ssa), s.ssa);
  add(valueFieldTitle(ValueField::Type), s.type);
  return lines.join(QLatin1Char('\n'));
}

QString valueLine(const ValueSummary& s) {
  if (!s.symbolic)
    return s.kind.isEmpty() ? s.type : s.type + QStringLiteral(" (") + s.kind + QLatin1Char(')');
  QStringList parts;
  for (const QString& part : {s.ssa, s.kind})
    if (!part.isEmpty()) parts << part;
  if (!s.channels.isEmpty()) parts << QStringLiteral("%1 channels").arg(s.channels);
  if (!s.dtype.isEmpty()) parts << s.dtype;
  return parts.join(QStringLiteral(" · "));
}

} // namespace lattice::studio
