#pragma once
/// \file SessionInputs: the model's inputs, one of StudioSession's parts. It holds the input specs
/// (the one list the interpreter and Export use) and the export options around them, remembers
/// the specs per model in QSettings (and takes over what an older studio kept under the export
/// dialog's group), and makes every edit a command on the document's undo stack, the stack leaf
/// toggles go on too.

#include "lowering/Lowering.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

class QUndoStack;

namespace lattice::studio {

class SessionInputs : public QObject {
  Q_OBJECT

public:
  /// Edits are pushed on `undo` (the document's stack).
  SessionInputs(QUndoStack* undo, QObject* parent = nullptr);

  const std::vector<InputSpec>& specs() const { return m_specs; }
  /// The options; their `inputs` are always specs().
  const ExportOptions& exportOptions() const { return m_options; }
  /// Takes `options` but for their inputs (setSpecs is for those).
  void setOptions(const ExportOptions& options);
  /// The archive's example inputs (empty for a TorchScript model, or when nothing is open).
  const std::vector<InputSpec>& archiveSpecs() const { return m_archive; }
  bool edited() const;
  /// The root forward's positional parameter names, in order.
  QStringList forwardInputNames() const { return m_forward; }

  /// A model opened (or was read again): its archive inputs and forward, the options back to
  /// their defaults, and the list remembered for it (else the archive's).
  void open(const QString& reference, const Model& model);
  /// One undoable step (`description` names it) to `specs`; nothing when they are the list now.
  void setSpecs(std::vector<InputSpec> specs, const QString& description = QString());
  /// F5 without any input: what to do about it.
  QString noInputsMessage() const;

  /// The QSettings group under which the inputs of `reference` are remembered.
  static QString settingsGroup(const QString& reference);

Q_SIGNALS:
  /// An edit, its undo or its redo set the list (remembered already).
  void specsApplied();

private:
  friend class InputSpecsCommand;
  /// Sets the list (no undo step), keeps the options' inputs equal, remembers it, then
  /// specsApplied.
  void apply(std::vector<InputSpec> specs);
  std::vector<InputSpec> restored() const;
  void remember() const;

  QUndoStack* m_undo;
  QString m_reference; ///< empty while no model is open
  std::vector<InputSpec> m_archive;
  QStringList m_forward;
  std::vector<InputSpec> m_specs;
  ExportOptions m_options;
};

} // namespace lattice::studio
