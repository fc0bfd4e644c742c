#pragma once
/// \file WindowFit: windows and dialogs that open at a size showing their fields, never larger
/// than the screen, and remember the size the user gave them (QSettings `dialogs/<key>`).

#include <QGuiApplication>
#include <QRect>
#include <QScreen>
#include <QSettings>
#include <QSize>
#include <QString>
#include <QWidget>

#include <algorithm>

namespace lattice::studio {

/// The room on `w`'s screen (the primary one before it is shown).
inline QRect availableScreenRect(const QWidget* w) {
  QScreen* screen = w ? w->screen() : nullptr;
  if (!screen) screen = QGuiApplication::primaryScreen();
  return screen ? screen->availableGeometry() : QRect(0, 0, 1024, 768);
}

/// `wanted` at least `w`'s minimum size hint (so no field is cut) and at most the screen's room.
inline QSize sizeWithinScreen(const QWidget* w, QSize wanted) {
  const QSize room = availableScreenRect(w).size() - QSize(16, 48); // frame and title bar
  wanted = wanted.expandedTo(w->minimumSizeHint());
  return {std::max(std::min(wanted.width(), room.width()), 100), std::max(std::min(wanted.height(), room.height()), 80)};
}

/// Restores the geometry saved under `key`, else resizes to `preferred` (see sizeWithinScreen);
/// a restored size smaller than the minimum size hint grows to it.
inline void restoreWindowSize(QWidget* w, const QString& key, QSize preferred) {
  const QByteArray saved = QSettings().value(QStringLiteral("dialogs/") + key).toByteArray();
  if (!saved.isEmpty() && w->restoreGeometry(saved))
    w->resize(sizeWithinScreen(w, w->size()));
  else
    w->resize(sizeWithinScreen(w, preferred));
}

/// Saves `w`'s geometry under `key` (call when it closes or is resized).
inline void saveWindowSize(const QWidget* w, const QString& key) {
  QSettings().setValue(QStringLiteral("dialogs/") + key, w->saveGeometry());
}

} // namespace lattice::studio
