/* Box2D 3 behind box2d3_adapter.h: see there. Bench-only (MIT, ../shared/anchors/box2d-v3). */
#include "box2d3_adapter.h"

#include <box2d/box2d.h>
#include <box2d/collision.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

struct PerpB2World {
  b2WorldId id;
  int body_count;
  b2BodyId* bodies;
  b2ShapeId* shapes;
  int* index_of_slot; /* body id slot (index1) -> index in `bodies`, -1 for the static body */
  int slot_count;
  uint8_t* image;     /* perp_b2v3_save's snapshot */
  int image_size;
};


PerpB2World* perp_b2v3_create(const PerpB2Body* bodies, int body_count, const PerpB2Segment* segments,
                              int segment_count, double friction, double gravity, int workers,
                              int contact_recycling) {
  b2WorldDef def = b2DefaultWorldDef();
  def.gravity = (b2Vec2){0.0f, (float)-gravity};
  def.enableSleep = false;
  def.workerCount = workers;
  PerpB2World* world = (PerpB2World*)calloc(1, sizeof(PerpB2World));
  world->id = b2CreateWorld(&def);
  world->body_count = body_count;
  world->bodies = (b2BodyId*)calloc((size_t)(body_count > 0 ? body_count : 1), sizeof(b2BodyId));
  world->shapes = (b2ShapeId*)calloc((size_t)(body_count > 0 ? body_count : 1), sizeof(b2ShapeId));

  b2ShapeDef shape_def = b2DefaultShapeDef();
  shape_def.material.friction = (float)friction;
  shape_def.material.restitution = 0.0f;
  shape_def.density = 1.0f;

  b2BodyDef ground_def = b2DefaultBodyDef();
  ground_def.position = (b2Pos){0.0f, -1.0f};
  b2BodyId ground = b2CreateBody(world->id, &ground_def);
  b2Polygon ground_box = b2MakeBox(1000.0f, 1.0f);
  b2CreatePolygonShape(ground, &shape_def, &ground_box);
  /* The walls on a static body of their own at the origin (the ground's is at y = -1). */
  b2BodyDef walls_def = b2DefaultBodyDef();
  b2BodyId walls = b2CreateBody(world->id, &walls_def);
  for (int s = 0; s < segment_count; ++s) {
    b2Segment segment = {{(float)segments[s].x1, (float)segments[s].y1}, {(float)segments[s].x2, (float)segments[s].y2}};
    b2CreateSegmentShape(walls, &shape_def, &segment);
  }

  for (int i = 0; i < body_count; ++i) {
    const PerpB2Body* body = bodies + i;
    b2BodyDef body_def = b2DefaultBodyDef();
    body_def.type = b2_dynamicBody;
    body_def.position = (b2Pos){(float)body->x, (float)body->y};
    body_def.rotation = b2MakeRot((float)body->angle);
    body_def.linearVelocity = (b2Vec2){(float)body->vx, (float)body->vy};
    body_def.angularVelocity = (float)body->w;
    body_def.enableContactRecycling = contact_recycling != 0;
    world->bodies[i] = b2CreateBody(world->id, &body_def);
    if (body->is_box) {
      b2Polygon box = b2MakeBox((float)body->half_width, (float)body->half_height);
      world->shapes[i] = b2CreatePolygonShape(world->bodies[i], &shape_def, &box);
    } else {
      b2Circle circle = {{0.0f, 0.0f}, (float)body->radius};
      world->shapes[i] = b2CreateCircleShape(world->bodies[i], &shape_def, &circle);
    }
  }
  /* Body ids stay valid across b2World_Restore (user data does not: a snapshot drops it), so
   * contacts are mapped to bodies by their ids' slots. */
  int slots = (ground.index1 > walls.index1 ? ground.index1 : walls.index1) + 1;
  for (int i = 0; i < body_count; ++i) {
    if (world->bodies[i].index1 + 1 > slots) slots = world->bodies[i].index1 + 1;
  }
  world->slot_count = slots;
  world->index_of_slot = (int*)malloc((size_t)slots * sizeof(int));
  for (int s = 0; s < slots; ++s) world->index_of_slot[s] = -1;
  for (int i = 0; i < body_count; ++i) world->index_of_slot[world->bodies[i].index1] = i;
  return world;
}

int perp_b2v3_save(PerpB2World* world) {
  int size = b2World_Snapshot(world->id, NULL, 0);
  if (size <= 0) return 0;
  free(world->image);
  world->image = (uint8_t*)malloc((size_t)size);
  world->image_size = size;
  return b2World_Snapshot(world->id, world->image, size) == size;
}

int perp_b2v3_restore(PerpB2World* world) {
  if (world->image == NULL) return 0;
  return b2World_Restore(world->id, world->image, world->image_size) ? 1 : 0;
}

void perp_b2v3_destroy(PerpB2World* world) {
  if (world == NULL) return;
  b2DestroyWorld(world->id);
  free(world->bodies);
  free(world->shapes);
  free(world->index_of_slot);
  free(world->image);
  free(world);
}

void perp_b2v3_step(PerpB2World* world, double timestep, int substeps) {
  b2World_Step(world->id, (float)timestep, substeps);
}

void perp_b2v3_state(const PerpB2World* world, double* out) {
  for (int i = 0; i < world->body_count; ++i) {
    b2BodyId body = world->bodies[i];
    b2Pos p = b2Body_GetPosition(body);
    b2Vec2 v = b2Body_GetLinearVelocity(body);
    out[6 * i + 0] = p.x;
    out[6 * i + 1] = p.y;
    out[6 * i + 2] = b2Rot_GetAngle(b2Body_GetRotation(body));
    out[6 * i + 3] = v.x;
    out[6 * i + 4] = v.y;
    out[6 * i + 5] = b2Body_GetAngularVelocity(body);
  }
}

static int body_index(const PerpB2World* world, b2BodyId body) {
  return body.index1 >= 0 && body.index1 < world->slot_count ? world->index_of_slot[body.index1] : -1;
}

int perp_b2v3_points(const PerpB2World* world, PerpB2Point* out, int capacity) {
  int count = 0;
  b2ContactData data[64];
  for (int i = 0; i < world->body_count; ++i) {
    int n = b2Shape_GetContactData(world->shapes[i], data, 64);
    for (int c = 0; c < n; ++c) {
      b2BodyId body_a = b2Shape_GetBody(data[c].shapeIdA);
      b2BodyId body_b = b2Shape_GetBody(data[c].shapeIdB);
      int a = body_index(world, body_a);
      int b = body_index(world, body_b);
      int other = a == i ? b : a;
      if (other >= 0 && other < i) continue; /* the pair is listed from its lower body */
      b2Pos center = b2Body_GetWorldCenter(body_a);
      const b2Manifold* manifold = &data[c].manifold;
      for (int k = 0; k < manifold->pointCount; ++k) {
        const b2ManifoldPoint* mp = manifold->points + k;
        if (count < capacity) {
          PerpB2Point* point = out + count;
          point->body_a = a;
          point->body_b = b;
          point->x = center.x + mp->anchorA.x;
          point->y = center.y + mp->anchorA.y;
          point->anchor_ax = mp->anchorA.x;
          point->anchor_ay = mp->anchorA.y;
          point->anchor_bx = mp->anchorB.x;
          point->anchor_by = mp->anchorB.y;
          point->nx = manifold->normal.x;
          point->ny = manifold->normal.y;
          point->normal_impulse = mp->normalImpulse;
          point->tangent_impulse = mp->tangentImpulse;
          point->total_normal_impulse = mp->totalNormalImpulse;
        }
        ++count;
      }
    }
  }
  return count;
}
