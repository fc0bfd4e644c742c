// SessionInputs: the input specs with their undo commands and their QSettings form, and the
// migration of what an older studio kept. It does not reset the interpreter nor tell the panels:
// the session does both on specsApplied.

#include "session/SessionInputs.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QUndoCommand>
#include <QUndoStack>

#include <optional>

namespace lattice::studio {

namespace {

QString toQString(const std::string& s) {
  return QString::fromStdString(s);
}

bool sameSpec(const InputSpec& a, const InputSpec& b) {
  return a.name == b.name && a.kind == b.kind && a.dtype == b.dtype && a.channels == b.channels &&
         a.stride == b.stride && a.type == b.type;
}

bool sameSpecs(const std::vector<InputSpec>& a, const std::vector<InputSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!sameSpec(a[i], b[i])) return false;
  return true;
}

/// "example:chain:3" as it is; a path made absolute and canonical (symlinks resolved when it
/// exists), so `model.pt` and `./dir/../model.pt` are one model.
QString canonicalReference(const QString& reference) {
  if (reference.startsWith(QStringLiteral("example:"))) return reference;
  const QFileInfo info(reference);
  const QString canonical = info.canonicalFilePath();
  return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

/// InputSpec ↔ QVariantMap, for QSettings (the form ExportDialog kept them in before).
QVariantMap specToMap(const InputSpec& spec) {
  QVariantMap m;
  m[QStringLiteral("name")] = toQString(spec.name);
  m[QStringLiteral("kind")] =
      spec.kind == InputSpec::Kind::Sparse ? QStringLiteral("sparse") : QStringLiteral("dense");
  m[QStringLiteral("dtype")] = toQString(spec.dtype);
  m[QStringLiteral("channels")] = spec.channels ? QVariant(qlonglong(*spec.channels)) : QVariant();
  m[QStringLiteral("stride")] =
      QStringLiteral("%1,%2,%3").arg(spec.stride[0]).arg(spec.stride[1]).arg(spec.stride[2]);
  m[QStringLiteral("type")] = toQString(spec.type);
  return m;
}

/// nullopt when the entry is not a usable spec (edited by hand, or from another version).
std::optional<InputSpec> specFromMap(const QVariantMap& m) {
  InputSpec spec;
  spec.name = m.value(QStringLiteral("name")).toString().toStdString();
  if (spec.name.empty()) return std::nullopt;
  const QString kind = m.value(QStringLiteral("kind")).toString();
  if (kind != QStringLiteral("sparse") && kind != QStringLiteral("dense")) return std::nullopt;
  spec.kind = kind == QStringLiteral("dense") ? InputSpec::Kind::Dense : InputSpec::Kind::Sparse;
  spec.dtype = m.value(QStringLiteral("dtype")).toString().toStdString();
  const QVariant channels = m.value(QStringLiteral("channels"));
  if (channels.isValid() && !channels.isNull() && !channels.toString().isEmpty()) {
    bool ok = false;
    const qlonglong value = channels.toLongLong(&ok);
    if (!ok || value < 0) return std::nullopt;
    spec.channels = value;
  }
  const QStringList stride =
      m.value(QStringLiteral("stride")).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
  if (stride.size() == 3) {
    for (int i = 0; i < 3; ++i) {
      bool ok = false;
      const qlonglong v = stride[i].trimmed().toLongLong(&ok);
      if (!ok || v <= 0) return std::nullopt;
      spec.stride[static_cast<std::size_t>(i)] = v;
    }
  }
  spec.type = m.value(QStringLiteral("type")).toString().toStdString();
  if (spec.kind == InputSpec::Kind::Sparse && spec.dtype != "f32" && spec.dtype != "f16") return std::nullopt;
  if (spec.kind == InputSpec::Kind::Dense && spec.type.rfind("tensor<", 0) != 0) return std::nullopt;
  return spec;
}

} // namespace

/// One edit of the input list: the lists before and after (a few specs; cheap to keep whole).
class InputSpecsCommand : public QUndoCommand {
public:
  InputSpecsCommand(SessionInputs* inputs, std::vector<InputSpec> before, std::vector<InputSpec> after,
                    const QString& text)
      : QUndoCommand(text), m_inputs(inputs), m_before(std::move(before)), m_after(std::move(after)) {}
  void undo() override { m_inputs->apply(m_before); }
  void redo() override { m_inputs->apply(m_after); }

private:
  SessionInputs* m_inputs;
  std::vector<InputSpec> m_before;
  std::vector<InputSpec> m_after;
};

SessionInputs::SessionInputs(QUndoStack* undo, QObject* parent) : QObject(parent), m_undo(undo) {
  m_options.inputs = m_specs;
}

void SessionInputs::setOptions(const ExportOptions& options) {
  m_options = options;
  m_options.inputs = m_specs;
}

bool SessionInputs::edited() const {
  return !sameSpecs(m_specs, m_archive);
}

void SessionInputs::open(const QString& reference, const Model& model) {
  m_reference = reference;
  m_archive = model.exampleInputs;
  m_forward.clear();
  if (!model.modules().empty())
    for (const SignatureParam& p : model.root().signature)
      if (p.kind == ParamKind::PositionalOnly || p.kind == ParamKind::PositionalOrKeyword)
        m_forward << toQString(p.name);
  m_options = ExportOptions();
  m_specs = restored();
  m_options.inputs = m_specs;
  if (edited()) remember(); // a list taken over from the export dialog's old place
}

void SessionInputs::setSpecs(std::vector<InputSpec> specs, const QString& description) {
  if (sameSpecs(specs, m_specs)) return;
  m_undo->push(new InputSpecsCommand(this, m_specs, std::move(specs),
                                     description.isEmpty() ? QStringLiteral("Edit Inputs") : description));
}

void SessionInputs::apply(std::vector<InputSpec> specs) {
  m_specs = std::move(specs);
  m_options.inputs = m_specs;
  remember();
  Q_EMIT specsApplied();
}

QString SessionInputs::settingsGroup(const QString& reference) {
  const QByteArray hash =
      QCryptographicHash::hash(canonicalReference(reference).toUtf8(), QCryptographicHash::Sha1)
          .toHex()
          .left(16);
  return QStringLiteral("inputs/") + QString::fromLatin1(hash);
}

void SessionInputs::remember() const {
  if (m_reference.isEmpty()) return;
  QSettings settings;
  const QString group = settingsGroup(m_reference);
  if (!edited()) { // the archive's own: nothing to remember
    settings.remove(group);
    return;
  }
  settings.beginGroup(group);
  settings.setValue(QStringLiteral("reference"), canonicalReference(m_reference));
  QVariantList specs;
  for (const InputSpec& spec : m_specs)
    specs << specToMap(spec);
  settings.setValue(QStringLiteral("specs"), specs);
  settings.endGroup();
}

std::vector<InputSpec> SessionInputs::restored() const {
  const std::vector<InputSpec>& archive = m_archive;
  auto decode = [](const QVariantList& list, std::vector<InputSpec>& out) {
    out.clear();
    for (const QVariant& v : list) {
      std::optional<InputSpec> spec = specFromMap(v.toMap());
      if (!spec) return false;
      out.push_back(std::move(*spec));
    }
    return true;
  };
  QSettings settings;
  std::vector<InputSpec> specs;
  settings.beginGroup(settingsGroup(m_reference));
  const bool remembered =
      settings.value(QStringLiteral("reference")).toString() == canonicalReference(m_reference) &&
      settings.contains(QStringLiteral("specs"));
  const QVariantList list = settings.value(QStringLiteral("specs")).toList();
  settings.endGroup();
  if (remembered) return decode(list, specs) ? specs : archive;
  // What an older studio wrote: the export dialog's own edited inputs (as many as the archive
  // has).
  const QByteArray legacy =
      QCryptographicHash::hash(m_reference.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
  settings.beginGroup(QStringLiteral("export/models/") + QString::fromLatin1(legacy));
  if (settings.value(QStringLiteral("reference")).toString() == m_reference) {
    const QVariantList old = settings.value(QStringLiteral("inputs")).toList();
    if (!old.isEmpty() && static_cast<std::size_t>(old.size()) == archive.size() && decode(old, specs))
      return specs;
  }
  return archive;
}

QString SessionInputs::noInputsMessage() const {
  const QString name = m_reference.startsWith(QStringLiteral("example:"))
                           ? m_reference
                           : QFileInfo(QDir::cleanPath(m_reference)).fileName();
  const QStringList& forward = m_forward;
  return QStringLiteral("%1 has no example inputs (a TorchScript file carries none): add one row per forward "
                        "input%2 in the Inputs table (Debug ▸ Edit Inputs…, or Inputs… in the Interpreter "
                        "panel), then start again")
      .arg(name,
           forward.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(forward.join(QStringLiteral(", "))));
}

} // namespace lattice::studio
