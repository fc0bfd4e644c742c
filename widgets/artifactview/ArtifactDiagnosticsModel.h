#pragma once
/// \file ArtifactDiagnosticsModel: the verifier's diagnostics for an opened artifact
/// (validateArtifact, every rule of lattice-artifact-validation.md) as a table: location
/// (`line:col`, or the file for whole-file diagnostics), severity and message. Notes follow
/// the error they belong to, as the verifier reports them.

#include "mlir/Diagnostic.h"

#include <QAbstractTableModel>

#include <vector>

namespace lattice::studio {

class ArtifactDiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { LocationColumn, SeverityColumn, MessageColumn, ColumnCount };
  /// The 1-based line of a row (0 for whole-file diagnostics).
  static constexpr int LineRole = Qt::UserRole + 1;

  explicit ArtifactDiagnosticsModel(QObject* parent = nullptr);

  void setDiagnostics(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return m_items; }
  /// Errors only (notes excluded).
  int errorCount() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<Diagnostic> m_items;
};

} // namespace lattice::studio
