"""Rule options: the choices the WPA text leaves open, each named, with the digest's default.

Every field answers one entry of section 8 of ``shared/rules/RULES_FOR_SIMULATION.md``
("digest 8.n" below) or a procedural constant of the digest. A ruleset reads only the fields
its game needs; the defaults reproduce the digest's proposed resolutions.

Digest 8.15 (the cue ball has crossed the head string when its centre reaches x >= L/4) is
not an option: the event log contract (``poolgym.events``) fixes it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class RuleOptions:
    """Named rule choices shared by every ruleset (defaults: the digest's resolutions)."""

    # digest 8.1 -- a 9-ball / 10-ball break that neither pockets a ball nor drives four
    # object balls to a cushion is a standard foul (English WPA). False: no consequence.
    illegal_break_is_foul: bool = True
    # digest 8.2 -- eight-ball: pocketing the 8-ball with any foul loses (English WPA 3.8(a)).
    # False: only a scratch with the 8-ball loses, as the Hungarian 3.8(a) is worded.
    eight_ball_any_foul_on_eight_loses: bool = True
    # digest 8.3 -- eight-ball: once the shooter's group is cleared, the 8-ball is the only
    # legal first contact. False: any ball may be hit first (3.9 read literally).
    eight_ball_cleared_group_must_hit_eight: bool = True
    # digest 8.4 -- eight-ball: the 8-ball pocketed on an open table, on a safety or with the
    # shooter's last group ball (judged at the start of the shot) loses.
    eight_ball_uncalled_eight_loses: bool = True
    # digest 8.5 -- eight-ball break with combined faults: 8-ball and cue ball pocketed ->
    # 3.3(f); otherwise 3.3(g)/(h) with the 8-ball spotted.
    eight_ball_combined_break_faults_use_f_first: bool = True
    # digest 8.6 -- ten-ball: a missed call that pockets a ball is no foul; the inning ends and
    # the opponent chooses to shoot or hand the table back. False: the opponent just plays.
    ten_ball_uncalled_pot_offers_pass_back: bool = True
    # digest 8.6 / WPA 9 -- ten-ball: the 10-ball pocketed on a legal break wins (the source's
    # edition). False: it is spotted and the breaker continues (WPA 2009+).
    ten_ball_break_ten_wins: bool = True
    # digest 8.7 -- 14.1: after the three-foul penalty re-rack all 15 and the offender breaks
    # (English WPA). Default off: play continues as after any foul.
    straight_pool_third_foul_rerack: bool = False
    # digest 8.8 -- 14.1: every 6.11 foul gives the incoming player cue ball in hand in the
    # kitchen. False: only the second paragraph of 6.11 (cue ball never crossed) does.
    straight_pool_any_6_11_gives_kitchen: bool = True
    # digest 8.9 -- 14.1: a break foul with a scratch, table accepted -> cue ball in hand in
    # the kitchen.
    straight_pool_break_scratch_gives_kitchen: bool = True
    # digest 8.10 -- 14.1: a full 15-ball re-rack is not an opening break. True: it is.
    straight_pool_full_rerack_is_break: bool = False
    # digest 8.11 -- 14.1 stalemate: scores stand (counters reset, 15 balls re-racked).
    straight_pool_stalemate_scores_stand: bool = True
    # digest 8.12 -- several balls spotted at once go in ascending order, the lowest nearest
    # the foot spot. False: descending order.
    spot_lowest_first: bool = True
    # digest 8.13 -- a ball frozen to a cushion that reaches a different cushion counts as
    # driven to a cushion. False: a ball frozen at the strike never counts (read from the log).
    frozen_ball_other_cushion_counts: bool = True
    # digest 8.14 -- a complete miss is recorded as 6.2 where the game names a ball to hit
    # first, otherwise 6.3. False: always 6.3.
    complete_miss_is_wrong_ball: bool = True
    # digest 8.16 -- the 6.14 warning is always given, so a third foul always counts.
    # False: warnings come only from ``Ruleset.issue_two_foul_warning``.
    always_warn_on_two_fouls: bool = True
    # digest 8.17 -- a ball dropping after REST (numerical drift) is restored, not pocketed.
    restore_balls_dropping_after_rest: bool = True
    # digest 8.18 -- eight-ball: after 3.3(e)(1) the breaker keeps shooting.
    eight_ball_breaker_continues_after_eight_spotted: bool = True
    # digest 2 (WPA 1.4) -- the gap left between a spotted ball and a blocking cue ball, metres.
    spotting_cue_ball_gap: float = 0.001
    # WPA 2.1 / 3.1 / 9.1 ("the usual format is alternating breaks"): who breaks the next rack.
    alternate_breaks: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise ValueError(f"RuleOptions.{f.name} must be a bool, got {value!r}")
        gap = self.spotting_cue_ball_gap
        if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not 0.0 <= gap < 0.05:
            raise ValueError("RuleOptions.spotting_cue_ball_gap must be in [0, 0.05) metres")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "RuleOptions":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule options {sorted(unknown)}")
        return cls(**data)
