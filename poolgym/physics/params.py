"""Physical constants of the simulation, in one documented dataclass."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from poolgym.numbers import integer, quote, real


@dataclass(frozen=True)
class PhysicsParams:
    """Cloth, ball, cushion and cue constants (SI units).

    Defaults and sources:

    - ``mu_slide`` 0.2 and ``mu_roll`` 0.01: ball-cloth sliding and rolling resistance
      (Alciatore, "The Illustrated Principles of Pool and Billiards", TP A.4; pooltool's defaults).
    - ``spin_deceleration`` 10.9 rad/s^2: decay of spin about the vertical axis, which is
      5 * mu_sp * g / (2 R) with pooltool's spinning-friction coefficient mu_sp = 0.0127.
    - ``ball_restitution`` 0.95: ball-ball contact (pooltool's default).
    - Ball-ball friction acts against the full 3-D slip of the contact points (Alciatore,
      TP A-14; pooltool's ``frictional_inelastic`` model): its horizontal part makes cut
      shots throw, its vertical part changes top and back spin in the contact. It falls
      with the slip speed v as measured by Alciatore (TP A-14): mu = ``ball_friction_min``
      + ``ball_friction_extra`` * exp(-``ball_friction_decay`` * v), 0.118 when the surfaces
      barely slide and 0.046 at 1 m/s (pooltool uses the same fit).
    - ``cushion_restitution`` 0.8 and ``cushion_friction`` 0.2: cushion contact by Han's
      impulse model (I. Han, "Dynamics in carom and three cushion billiards", J. Mech. Sci.
      Tech. 19(4), 2005), at the nose height ``Table.cushion_height``: the restitution
      applies along the contact normal, which the nose tilts, and the friction acts on
      all three spin components, so rails take top spin and draw and side spin bends the
      rebound. Driven straight in, a ball without spin leaves at 0.69 of its speed; a
      rolling one leaves at 0.76 keeping 13% of its top spin, and rolls back at 0.51.
      pooltool's cushion models (Han 2005, Mathavan 2010, Stronge compliant) default to
      0.85 and 0.2; the cushion rebounds' measured ratios are 0.75-0.85.
    - ``cue_mass`` 0.567 kg (a 20 oz cue) sets how much an off-centre hit loses in speed;
      ``cue_end_mass`` 0.0057 kg sets squirt (the tip end's effective mass, pooltool's
      default of a ball's mass / 30).
    - ``miscue_limit`` 0.6: a tip offset of more than this fraction of the radius is
      reported as a miscue (0.5 is the edge of a normal hit).
    - ``squirt``: off by default; when on, side spin deflects the cue ball away from the
      side struck (right english to the left) by Alciatore's end-mass formula (TP A-31),
      about 1.9 degrees at half a radius of offset with the default end mass.
    - ``bed_restitution`` 0.5: the bounce of a ball driven into the bed (by an elevated cue,
      a landing, or a ball landing on it) and on a rail top, along the vertical; friction
      in that bounce is the cloth's ``mu_slide`` against the contact point's slip. 0.5 is a
      chosen value for a ball on slate under cloth, not a published measurement: a jump
      shot's height scales with it.
    - ``min_hop_speed`` 0.05 m/s: a ball leaving the bed slower than this upwards stays on
      it (its flight would last 10 ms and rise 0.13 mm); the vertical speed is dropped.
    - ``max_speed`` 15 m/s: the fastest accepted launch speed (a power break is ~11 m/s).
    - ``rest_speed`` and ``rest_spin``: below these a ball counts as at rest.
    - ``frozen_tolerance`` 0.1 mm: a ball this close to a cushion or the cue ball at the
      strike is frozen to it.
    - ``max_events``: a hard bound on events in one shot, so a pathological layout ends
      with an error rather than a hang.
    """

    gravity: float = 9.81
    mu_slide: float = 0.2
    mu_roll: float = 0.01
    spin_deceleration: float = 10.9
    ball_restitution: float = 0.95
    ball_friction_min: float = 0.009951
    ball_friction_extra: float = 0.108
    ball_friction_decay: float = 1.088
    cushion_restitution: float = 0.8
    cushion_friction: float = 0.2
    cue_mass: float = 0.567
    cue_end_mass: float = 0.0057
    miscue_limit: float = 0.6
    squirt: bool = False
    bed_restitution: float = 0.5
    min_hop_speed: float = 0.05
    max_speed: float = 15.0
    rest_speed: float = 1e-4
    rest_spin: float = 1e-2
    frozen_tolerance: float = 1e-4
    max_events: int = 200_000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "squirt":
                if not isinstance(value, (bool, np.bool_)):
                    raise ValueError(f"PhysicsParams.squirt must be a bool, got {quote(value)}")
                object.__setattr__(self, f.name, bool(value))
                continue
            # Plain Python numbers from here on (see poolgym.numbers).
            value = (integer if f.name == "max_events" else real)(value, f"PhysicsParams.{f.name}")
            object.__setattr__(self, f.name, value)
            if f.name == "ball_friction_extra" and value == 0:
                continue  # a constant ball-ball friction
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"PhysicsParams.{f.name} must be a positive finite number, got {value!r}")
        for name in ("ball_restitution", "cushion_restitution", "bed_restitution"):
            if getattr(self, name) > 1.0:
                raise ValueError(f"PhysicsParams.{name} must be in (0, 1], got {getattr(self, name)!r}")
        if not 0 < self.miscue_limit < 1:
            raise ValueError(f"PhysicsParams.miscue_limit must be in (0, 1), got {self.miscue_limit!r}")
