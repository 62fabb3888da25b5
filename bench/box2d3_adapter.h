/* A plain C interface to Box2D 3 (../shared/anchors/box2d-v3) for compare_box2d.cpp.
 *
 * Box2D 2.4.1 (Debian, C++) and Box2D 3 (C) both name their types b2Vec2, b2BodyDef, b2World…, so
 * their headers cannot meet in one translation unit. Box2D 3 is included only by box2d3_adapter.c,
 * which speaks to compare_box2d.cpp through this header (doubles and body indices only). The two
 * libraries share no linker symbol (2.4.1's are C++-mangled; its few plain globals, b2_version,
 * b2_toiCalls…, are not names of 3.x), so both link into one executable. */
#ifndef PERP_BENCH_BOX2D3_ADAPTER_H
#define PERP_BENCH_BOX2D3_ADAPTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* A dynamic body: a box (half extents) when is_box, else a disk (radius). Density 1 per unit area. */
typedef struct PerpB2Body {
  int is_box;
  double half_width, half_height, radius;
  double x, y, angle, vx, vy, w;
} PerpB2Body;

/* A static segment (a wall: perp's plane as a long segment along its surface). */
typedef struct PerpB2Segment {
  double x1, y1, x2, y2;
} PerpB2Segment;

/* One manifold point of a touching contact after a step: the bodies (index of the dynamic body in
 * the order created, -1 for the ground or a wall), the world point (body a's centre after the step
 * plus its anchor), the anchors (the lever arms the step used), the manifold normal (from a to b), and Box2D's impulses on b (a gets the opposite): normal_impulse and tangent_impulse are the
 * last sub-step's accumulated impulses (what the next step warm-starts from), total_normal_impulse
 * the normal impulse applied over the whole step (warm starts, sub-step deltas and restitution). */
typedef struct PerpB2Point {
  int body_a, body_b;
  double x, y, nx, ny;
  double anchor_ax, anchor_ay, anchor_bx, anchor_by; /* the point from each body's centre, at the step's start */
  double normal_impulse, tangent_impulse, total_normal_impulse;
} PerpB2Point;

typedef struct PerpB2World PerpB2World;

/* A world with gravity (0, -gravity), sleeping off, continuous collision on (Box2D's default), a
 * static ground box whose top is y = 0 (2 000 m wide), `segment_count` static segments, and the
 * bodies; every shape has friction `friction` (Box2D mixes sqrt(mu_a mu_b): mu again), restitution 0.
 * workers: 1, or more for Box2D's own scheduler threads. contact_recycling: Box2D's
 * b2BodyDef::enableContactRecycling (its default, 1: a touching pair that moved little keeps its
 * manifold, normal included, from an earlier step). */
PerpB2World* perp_b2v3_create(const PerpB2Body* bodies, int body_count, const PerpB2Segment* segments,
                              int segment_count, double friction, double gravity, int workers,
                              int contact_recycling);
/* Keeps a snapshot of the world (b2World_Snapshot: bodies, contacts and their warm-start impulses);
 * returns 0 if it failed. perp_b2v3_restore puts the world back to it in place (b2World_Restore;
 * returns 0 if it failed), so that one state can be stepped several ways. */
int perp_b2v3_save(PerpB2World* world);
int perp_b2v3_restore(PerpB2World* world);
void perp_b2v3_destroy(PerpB2World* world);
void perp_b2v3_step(PerpB2World* world, double timestep, int substeps);
/* Writes 6 doubles a body: x, y, angle, vx, vy, w (the body origin, which is its centre here). */
void perp_b2v3_state(const PerpB2World* world, double* out);
/* The manifold points of the touching contacts, each once; returns how many there are (writes at
 * most `capacity`). */
int perp_b2v3_points(const PerpB2World* world, PerpB2Point* out, int capacity);

#ifdef __cplusplus
}
#endif

#endif
