#pragma once
/// \file
/// The 3D scene viewer (issue 36): one self-contained HTML page that draws a 3D run with three.js
/// (Debian's `libjs-three`, r111, read from `three_js_path()` and written inline, so the page needs
/// no network and no other file): spheres, boxes, capsules, cylinders, the ground and the planes,
/// lit, under an orbit camera (drag: turn about the target; shift-drag or right-drag: move the
/// target; wheel: zoom), with play/pause, a time slider, the speed, a frame counter, the contact
/// points and their forces (impulse / h) as arrows on a toggle, the bodies coloured by body or by
/// contact state (touching something at that frame, free, fixed), and the energy curve with a
/// cursor at the time shown (the 2D page's plot).
///
/// As the 2D page (io/viewer.hpp), a script or a test drives it by the address:
/// `view.html#t=0.5&contacts=0&color=contact&view=AZIMUTH,ELEVATION` shows the frame nearest
/// t = 0.5 s, hides the contacts, colours by contact state and puts the camera at those angles
/// (degrees; azimuth from +x towards +y, elevation above the xy plane); `&play=1` plays. The element
/// `<pre id="state">` then holds a JSON object: `frame`, `step`, `t`, `slider`, `playing`,
/// `contacts`, `color`, the body colours as drawn (`colors`, "#rrggbb"), which bodies touch
/// something (`touching`), the camera (`camera`: its position; `view_projection`: the 16 entries,
/// column by column, of projection × view, which maps a world point to clip coordinates), the
/// canvas (`canvas_origin` in the page, `canvas_size` in pixels), `webgl` (whether a WebGL context
/// was made) and `errors` (the errors the page met, empty when none). A page without WebGL says so
/// on the page and in `errors`.

#include <filesystem>
#include <string>

#include "perp/contact3d/scene.hpp"
#include "perp/io/simulation3d.hpp"

namespace perp {

/// Where three.js is read from: the environment variable PERP_THREE_JS when set and not empty,
/// otherwise the path found at build time (Debian: /usr/share/javascript/three/three.min.js).
[[nodiscard]] std::filesystem::path three_js_path();

/// three.js as read from `three_js_path()`. Throws `InvalidProblem` naming the path and the package
/// that ships it when the file cannot be read.
[[nodiscard]] std::string read_three_js();

/// Writes the 3D viewer page of `record` (a run of `scene`) to `path` with `three_js` (the library's
/// text, `read_three_js()`) inline; `title` is shown on the page. Poses carry 6 significant digits,
/// contact points 5 and impulses 3. Throws `InvalidProblem` when `three_js` holds "</script" or
/// "<!--" (they would end or upset the script element) or the page cannot be written (naming it).
void write_viewer3d_html(const std::filesystem::path& path, const contact3d::Scene& scene,
                         const Simulation3dRecord& record, const std::string& title, const std::string& three_js);

}  // namespace perp
