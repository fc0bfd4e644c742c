#pragma once
// What the artifact-view tests share: the conformance artifacts, the op graph read from
// graph.mlir's text without the artifact reader, and opening an artifact until it settled.

#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/WeightsTableModel.h"

#include "WidgetTestSupport.h"

#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QtTest/QSignalSpy>

#include <algorithm>

namespace lattice::widgettest {

inline QString modelsDir() {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models");
}

inline QString expectedDir(const QString& name) {
  return modelsDir() + QLatin1Char('/') + name + QStringLiteral("/expected.lattice");
}

inline QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// What the text says: arguments, ops (first result name, line), and edges as
/// "producer -> consumer" first names, counted without the artifact reader.
struct TextGraph {
  QStringList arguments;
  QStringList ops; ///< first result name of each op
  QList<int> opLines;
  QStringList edges;
};

inline TextGraph readTextGraph(const QString& mlir) {
  TextGraph g;
  const QStringList lines = mlir.split(QLatin1Char('\n'));
  QHash<QString, QString> definer; // value → first result of its op (or the argument)
  bool inSignature = false;
  static const QRegularExpression value(QStringLiteral("%([A-Za-z0-9_$.\\-]+)"));
  for (int i = 0; i < lines.size(); ++i) {
    const QString line = lines[i].trimmed();
    if (line.startsWith(QStringLiteral("func.func"))) {
      inSignature = true;
      continue;
    }
    if (inSignature) {
      if (line.startsWith(QLatin1Char(')'))) {
        inSignature = false;
        continue;
      }
      const QString name = line.section(QLatin1Char(':'), 0, 0).mid(1); // "%x_coords: tensor<…>,"
      g.arguments << name;
      definer.insert(name, name);
      continue;
    }
    const int eq = line.indexOf(QStringLiteral(" = lattice."));
    if (eq < 0) continue;
    QStringList results;
    for (const QString& r : line.left(eq).split(QStringLiteral(", ")))
      results << r.trimmed().mid(1);
    // Operands: between the op name and its attribute dictionary or trailing type.
    QString rest = line.mid(eq + 3);
    rest = rest.mid(rest.indexOf(QLatin1Char(' ')) + 1);
    int end = rest.size();
    for (const QString& stop : {QStringLiteral(" {"), QStringLiteral(" :")})
      if (int at = rest.indexOf(stop); at >= 0) end = std::min(end, at);
    auto it = value.globalMatch(rest.left(end));
    while (it.hasNext()) {
      const QString operand = it.next().captured(1);
      g.edges << definer.value(operand, QStringLiteral("?")) + QStringLiteral(" -> ") + results.front();
    }
    for (const QString& r : results)
      definer.insert(r, results.front());
    g.ops << results.front();
    g.opLines << i + 1;
  }
  return g;
}

/// Opens `path` and waits until the document, its layout and its weight statistics are in.
inline bool openAndSettle(studio::ArtifactView& view, const QString& path) {
  QSignalSpy loaded(&view, &studio::ArtifactView::documentLoaded);
  QSignalSpy laid(view.graphView(), &studio::ArtifactGraphView::layoutFinished);
  view.open(path);
  if (!waitFor([&] { return !loaded.isEmpty(); })) return false;
  if (view.document()->opGraph && !waitFor([&] { return !laid.isEmpty(); })) return false;
  return waitFor([&] { return !view.weightsModel()->isComputing(); });
}

} // namespace lattice::widgettest
