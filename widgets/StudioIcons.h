#pragma once
/// \file StudioIcons: the studio's toolbar icons, painted in code (no icon theme is guaranteed
/// on the machines the studio runs on, and Qt's standard pixmaps lack zoom and breakpoint).

#include <QIcon>

namespace lattice::studio::icons {

QIcon open();
QIcon exportArtifact();
QIcon zoomIn();
QIcon zoomOut();
QIcon zoomFit();
QIcon find();
QIcon start();
QIcon step();
QIcon continueRun();
QIcon runToCursor();
QIcon breakpoint();
QIcon stop();

} // namespace lattice::studio::icons
