// Artifact view colours and the legend row. Hues follow NodeStyle.cpp (Okabe–Ito family, light
// fills) so the artifact and model graphs read alike.

#include "artifactview/ArtifactStyle.h"

#include "artifactview/ArtifactRun.h"
#include "numeric/NumericOverlay.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLocale>
#include <QPainter>
#include <QSettings>
#include <QStringList>

#include <cmath>

namespace lattice::studio {

namespace {
constexpr int kSwatch = 12;
constexpr int kGap = 6;
constexpr int kEntryGap = 16;
constexpr int kPad = 4;

ArtifactNodeStyle styleOf(QColor fill, QColor border, QColor text, QString label, bool dashed) {
  ArtifactNodeStyle style;
  style.fill = fill;
  style.border = border;
  style.text = text;
  style.label = std::move(label);
  style.dashed = dashed;
  return style;
}
} // namespace

const ArtifactNodeStyle& categoryStyle(OpCategory category) {
  static const ArtifactNodeStyle styles[] = {
      styleOf(QColor(0xfd, 0xf1, 0xcf), QColor(0xc8, 0x8a, 0x00), QColor(0x3d, 0x2c, 0x00),
              QObject::tr("argument (input)"), false),
      styleOf(QColor(0xee, 0xee, 0xea), QColor(0x80, 0x80, 0x78), QColor(0x2a, 0x2a, 0x28),
              QObject::tr("weight"), false),
      styleOf(QColor(0xcf, 0xe8, 0xfc), QColor(0x00, 0x72, 0xb2), QColor(0x0b, 0x1f, 0x33),
              QObject::tr("convolution / linear"), false),
      styleOf(QColor(0xd9, 0xf2, 0xe6), QColor(0x00, 0x9e, 0x73), QColor(0x0d, 0x2e, 0x22),
              QObject::tr("sparse structure"), false),
      styleOf(QColor(0xec, 0xe6, 0xf5), QColor(0x7a, 0x5c, 0xa8), QColor(0x2a, 0x1f, 0x3a),
              QObject::tr("other op"), false),
  };
  return styles[static_cast<int>(category)];
}

const ArtifactNodeStyle& statusStyle(DiffStatus status) {
  static const ArtifactNodeStyle styles[] = {
      styleOf(QColor(0xf0, 0xf1, 0xf3), QColor(0x9a, 0xa2, 0xad), QColor(0x30, 0x36, 0x3d),
              QObject::tr("unchanged"), false),
      styleOf(QColor(0xff, 0xe8, 0xb3), QColor(0xd9, 0x8e, 0x00), QColor(0x3d, 0x2a, 0x00),
              QObject::tr("changed"), false),
      styleOf(QColor(0xd4, 0xf4, 0xdc), QColor(0x1e, 0x9e, 0x4a), QColor(0x0d, 0x33, 0x18),
              QObject::tr("added"), false),
      styleOf(QColor(0xfd, 0xdc, 0xd8), QColor(0xd5, 0x3e, 0x2a), QColor(0x45, 0x10, 0x0a),
              QObject::tr("removed"), true),
  };
  return styles[static_cast<int>(status)];
}

void setRunFigures(ArtifactNodeStyle& style, ArtifactOverlay overlay, const ArtifactRunResult& result,
                   int op) {
  style.figure.clear();
  style.figureDetail.clear();
  if (op < 0) return;
  QStringList lines;
  const double ms =
      op < static_cast<int>(result.opMs.size()) ? result.opMs[static_cast<std::size_t>(op)] : -1.0;
  if (ms >= 0.0) {
    const QString share = result.totalMs > 0.0 ? formatShare(ms / result.totalMs) : QString();
    if (overlay == ArtifactOverlay::Time)
      style.figure = share.isEmpty() ? formatMs(ms) : QObject::tr("%1 · %2").arg(formatMs(ms), share);
    lines << (share.isEmpty()
                  ? QObject::tr("Time: %1 ms").arg(QLocale().toString(ms, 'f', 3))
                  : QObject::tr("Time: %1 ms, %2 of the run").arg(QLocale().toString(ms, 'f', 3), share));
  }
  // The outputs this op makes, against the expected file (several: the worst on the box).
  const runtime::OutputCheck* worst = nullptr;
  for (std::size_t i = 0; i < result.checks.size() && i < result.checkOps.size(); ++i) {
    if (result.checkOps[i] != op) continue;
    const runtime::OutputCheck& c = result.checks[i];
    const QString name = QString::fromStdString(c.name);
    if (!c.problem.empty()) {
      lines << QObject::tr("Output %1: not compared: %2").arg(name, QString::fromStdString(c.problem));
    } else {
      const runtime::Divergence& d = c.divergence;
      lines << QObject::tr("Output %1 %2: relative L2 %3, Pearson %4, max |Δ| %5; %6 of %7 values outside")
                   .arg(name, c.ok ? QObject::tr("within rtol/atol") : QObject::tr("outside rtol/atol"),
                        formatFigure(d.relL2), QLocale().toString(d.pearson, 'f', 4), formatFigure(d.maxAbs),
                        QLocale().toString(qlonglong(d.outside)), QLocale().toString(qlonglong(d.elements)));
    }
    const bool worse =
        !worst || (!c.problem.empty() && worst->problem.empty()) ||
        (c.problem.empty() == worst->problem.empty() && !(c.divergence.relL2 <= worst->divergence.relL2));
    if (worse) worst = &c;
  }
  if (worst && overlay == ArtifactOverlay::Accuracy)
    style.figure = !worst->problem.empty() ? QObject::tr("not compared")
                                           : QObject::tr("L2 %1 · r %2")
                                                 .arg(formatFigure(worst->divergence.relL2),
                                                      QLocale().toString(worst->divergence.pearson, 'f', 4));
  style.figureDetail = lines.join(QLatin1Char('\n'));
}

QVector<OpCategory> legendCategories() {
  return {OpCategory::Argument, OpCategory::Weight, OpCategory::Compute, OpCategory::Structure,
          OpCategory::Other};
}

QVector<DiffStatus> legendStatuses() {
  return {DiffStatus::Unchanged, DiffStatus::Changed, DiffStatus::Added, DiffStatus::Removed};
}

ArtifactLegend::ArtifactLegend(QWidget* parent) : QWidget(parent) {
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void ArtifactLegend::setEntries(const QVector<ArtifactNodeStyle>& entries) {
  m_entries = entries;
  updateGeometry();
  update();
}

QVector<QRect> ArtifactLegend::layoutEntries(int width) const {
  const QFontMetrics fm(font());
  const int line = qMax(fm.height(), kSwatch) + 2;
  QVector<QRect> rects;
  int x = kPad;
  int y = kPad;
  for (const ArtifactNodeStyle& e : m_entries) {
    const int w = kSwatch + kGap + fm.horizontalAdvance(e.label);
    if (x > kPad && x + w > width - kPad) {
      x = kPad;
      y += line;
    }
    rects.push_back(QRect(x, y, w, line));
    x += w + kEntryGap;
  }
  return rects;
}

int ArtifactLegend::heightForWidth(int width) const {
  const QVector<QRect> rects = layoutEntries(width);
  return rects.isEmpty() ? 0 : rects.back().bottom() + 1 + kPad;
}

QSize ArtifactLegend::sizeHint() const {
  const QVector<QRect> rects = layoutEntries(100000);
  const int w = rects.isEmpty() ? 0 : rects.back().right() + 1 + kPad;
  return {w, heightForWidth(w)};
}

QSize ArtifactLegend::minimumSizeHint() const {
  return {80, heightForWidth(80)};
}

void ArtifactLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QVector<QRect> rects = layoutEntries(width());
  for (int i = 0; i < m_entries.size(); ++i) {
    const ArtifactNodeStyle& e = m_entries[i];
    const QRect& r = rects[i];
    const QRectF swatch(r.left(), r.top() + (r.height() - kSwatch) / 2.0, kSwatch, kSwatch);
    QPen pen(e.border, 1.3);
    if (e.dashed) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    p.setBrush(e.fill);
    p.drawRoundedRect(swatch, 3, 3);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(r.adjusted(kSwatch + kGap, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, e.label);
  }
}

QSplitter* makeSplitPair(Qt::Orientation orientation, const QString& objectName, QWidget* first, QWidget* second,
                         QWidget* parent, bool weighted) {
  auto* split = new QSplitter(orientation, parent);
  split->setObjectName(objectName);
  split->addWidget(first);
  split->addWidget(second);
  if (weighted) {
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
  }
  return split;
}

void persistSplitter(QSplitter* splitter, const QString& settingsKey, const QList<int>& defaultSizes) {
  if (!splitter->restoreState(QSettings().value(settingsKey).toByteArray())) splitter->setSizes(defaultSizes);
  QObject::connect(splitter, &QSplitter::splitterMoved, splitter,
                   [splitter, settingsKey] { QSettings().setValue(settingsKey, splitter->saveState()); });
}

QTableView* makeTable(QWidget* parent, QAbstractItemView::SelectionMode selection) {
  auto* table = new QTableView(parent);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(selection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->setVisible(false);
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setWordWrap(false);
  return table;
}

} // namespace lattice::studio
