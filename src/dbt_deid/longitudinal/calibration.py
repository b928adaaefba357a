"""What the synthetic HHP-like claims are calibrated to, each figure next to its source.

Sources, cited by short name in the comments below:

* **El Emam et al. 2012** - El Emam et al. 2012, the Heritage Health Prize (HHP) de-identification
paper
  (section "Results" unless a table is named).
* **HHP dictionary** - the HHP data dictionary (release 3; field list as on the competition's
  data page): AgeAtFirstClaim in 10-year bands with 80+, Sex, Year Y1-Y3, Specialty, PlaceSvc,
  ProcedureGroup, PrimaryConditionGroup (45 groups), CharlsonIndex (0, 1-2, 3-4, 5+), LengthOfStay
  (days up to 6, then week bands; blank when the claim has none), DSFS (days since first service
  that year, in months), SupLOS (LengthOfStay suppressed), ClaimsTruncated per member and year
  in DaysInHospital_Y2 / _Y3, and DaysInHospital capped at 15 ("more than two weeks ... treated
  as though they spent 15 days").
* **HHP counts** - value counts of the public release-3 ``Claims.csv`` (2,668,990 rows; a blank
  is a missing value), as tabulated in the public repository invinciblejha/kaggle
  (``heritage/Claims.counts``), which also gives 130 as the most claims of one member.
* **HHP rows** - row counts of the public release-3 files reported in public analyses:
  DaysInHospital_Y2 76,038 members (those with Y1 claims), 3,972 of them with ClaimsTruncated = 1;
  DaysInHospital_Y3 71,435 members, the members with Y2 claims (898,872 claims).
* **HHP providers** - the distinct ``ProviderID`` per member of the public release-3 ``Claims.csv``,
  as tabulated in the public repository invinciblejha/kaggle (``heritage/README.md``, "patient
  counts for Claims.csv : ProviderID"; computed by its ``explore.py -p Claims.csv:ProviderID``).
* **HHP members** - counts computed from the public release-3 member tables ``Members.csv``
  (113,000 rows: MemberID, AgeAtFirstClaim, Sex), ``DaysInHospital_Y2.csv`` (76,038 rows) and
  ``DaysInHospital_Y3.csv`` (71,435 rows), as copied in the public GitHub repository
  ``linhgoes/HHP`` (commit 1b723ba); the HHP data terms do not allow redistribution, so only
  these aggregate counts are committed, never a member row.
* **HHP FAQ** - the competition's FAQ: Heritage Provider Network cares for "approximately
  700,000 Californians" (the population the 113,000 patients are sampled from).
* **plausible** - our choice where no source gives the figure (who is a heavy user, how stays
  fall on heavy and light users, the joint structure of place, specialty and procedure); the
  comment says why.

The frequencies are fixed module constants, never drawn per seed: a seed changes which patient
gets which values, not how often each value occurs. ``tests/unit/test_longitudinal_generator.py``
checks generated data against the figures at a small scale.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

# -- sizes (El Emam et al. 2012 "Results"; HHP counts, HHP rows)
# -------------------------------------------
PAPER_PATIENTS = 113_000                 # El Emam et al. 2012: "113,000 patients"
# El Emam et al. 2012: claims released, i.e. after truncation
PAPER_CLAIMS = 2_668_990
PAPER_MEDIAN_CLAIMS = 11                 # El Emam et al. 2012: median claims per person (released)
PAPER_MAX_CLAIMS = 136                   # El Emam et al. 2012: maximum per person (HHP counts: 130)
# El Emam et al. 2012: patients with some claims truncated (8.46%)
PAPER_TRUNCATED_PATIENTS = 9_556
HPN_MEMBERS = 700_000                    # HHP FAQ: HPN's members, the population sampled
SAMPLING_FRACTION = PAPER_PATIENTS / HPN_MEMBERS   # alpha = 0.161 -> k = ceil(20 alpha) = 4
HHP_CLAIMS_BY_YEAR = {1: 865_689, 2: 898_872, 3: 904_429}    # HHP counts (Year)
HHP_MEMBERS_WITH_CLAIMS = {1: 76_038, 2: 71_435}              # HHP rows
HHP_Y1_TRUNCATED_MEMBERS = 3_972                              # HHP rows: 5.2% of Y1 members
HHP_DISTINCT_IDS = {"provider_id": 14_700, "vendor_id": 6_388, "pcp_id": 1_360}  # HHP counts
DIH_CAP = 15                             # HHP dictionary: > 2 weeks is recorded as 15

# -- category frequencies of the claims (HHP counts; key None = blank, a missing value) ---------
# The generated claims have these shares before truncation (within 4% relative for every value
# above 0.5%, 113,000 patients); truncation removes the rarest claims first, so in the released
# claims the rarer values are up to 13% below them.
PLACE_OF_SERVICE_COUNTS: dict[str | None, int] = {
    "Office": 1_542_007, "Independent Lab": 657_750, "Urgent Care": 199_528,
    "Outpatient Hospital": 121_528, "Inpatient Hospital": 85_776, "Ambulance": 34_766,
    "Other": 11_700, "Home": 8_303, None: 7_632,
}
SPECIALTY_COUNTS: dict[str | None, int] = {
    "Internal": 672_059, "Laboratory": 653_188, "General Practice": 473_655, "Surgery": 208_217,
    "Diagnostic Imaging": 207_297, "Emergency": 126_130, "Other": 92_687, "Pediatrics": 84_862,
    "Rehabilitation": 57_554, "Obstetrics and Gynecology": 36_594, "Anesthesiology": 33_435,
    "Pathology": 14_907, None: 8_405,
}
PROCEDURE_GROUP_COUNTS: dict[str | None, int] = {
    "EM": 1_048_210, "PL": 492_919, "MED": 372_101, "SCS": 274_805, "RAD": 265_272,
    "SDS": 60_678, "SIS": 56_461, "SMS": 29_177, "ANES": 17_061, "SGS": 9_406, "SEOA": 8_420,
    "SRS": 7_905, "SNS": 7_796, "SAS": 5_745, "SUS": 5_612, "SMCD": 3_376, "SO": 371, None: 3_675,
}
PRIMARY_CONDITION_GROUP_COUNTS: dict[str | None, int] = {
    "MSC2a3": 507_277, "METAB3": 320_553, "ARTHSPIN": 288_285, "NEUMENT": 171_605,
    "RESPR4": 138_062, "MISCHRT": 131_047, "SKNAUT": 107_976, "GIBLEED": 101_846,
    "INFEC4": 83_552, "TRAUMA": 72_050, "HEART2": 54_207, "RENAL3": 52_214, "ROAMI": 48_821,
    "MISCL5": 48_307, "ODaBNCA": 46_732, "UTI": 44_806, "COPD": 44_154, "GYNEC1": 44_143,
    "CANCRB": 42_895, "FXDISLC": 40_851, "AMI": 34_805, "PRGNCY": 32_004, "HEMTOL": 31_631,
    "HEART4": 28_733, "SEIZURE": 20_501, "APPCHOL": 17_945, "CHF": 13_316, "GYNECA": 12_491,
    "PNEUM": 11_333, "RENAL2": 10_922, "GIOBSENT": 9_718, "STROKE": 8_416, "CANCRA": 5_587,
    "FLaELEC": 5_263, "MISCL1": 4_892, "HIPFX": 4_355, "METAB1": 3_863, "PERVALV": 3_518,
    "LIVERDZ": 2_747, "CATAST": 2_070, "CANCRM": 1_096, "PERINTL": 980, "PNCRDZ": 912,
    "RENAL1": 602, "SEPSIS": 497, None: 11_410,
}
CHARLSON_COUNTS: dict[str, int] = {"0": 1_356_995, "1-2": 1_256_527, "3-4": 49_479, "5+": 5_989}
#: LengthOfStay of the claims that have one (HHP counts; 2,597,392 claims have none, 11,332 of
#: them because it was suppressed, SupLOS = 1). Bands in days, as the dictionary's labels.
LOS_BAND_COUNTS: dict[tuple[int, int], int] = {
    (1, 1): 56_696, (2, 2): 6_485, (3, 3): 3_246, (4, 4): 1_473, (5, 5): 510, (6, 6): 179,
    (7, 14): 1_143, (15, 28): 961, (29, 56): 903, (183, 365): 2,
}
HHP_SUPPRESSED_LOS = 11_332              # HHP counts: SupLOS = 1
#: DSFS by 30-day month (HHP counts); 52,770 claims have none (not generated: see generator).
DSFS_MONTH_COUNTS = (707_721, 247_343, 225_216, 212_214, 189_001, 192_000, 180_662, 175_191,
                     171_878, 151_527, 116_328, 47_139)

# -- members (HHP members: counts of the public member tables) ----------------------------------
#: AgeAtFirstClaim bands of the HHP dictionary (None = blank, age missing) and the number of
#: members in each (HHP members: Members.csv, 113,000 rows).
AGE_BANDS: tuple[tuple[int, int] | None, ...] = (
    (0, 9), (10, 19), (20, 29), (30, 39), (40, 49), (50, 59), (60, 69), (70, 79), (80, 95), None,
)
HHP_AGE_BAND_COUNTS = (10_791, 11_319, 8_505, 12_435, 16_111, 13_329, 12_622, 14_514, 7_621,
                       5_753)
AGE_BAND_SHARES = tuple(c / sum(HHP_AGE_BAND_COUNTS) for c in HHP_AGE_BAND_COUNTS)
#: Sex (HHP members: Members.csv; None = blank).
HHP_SEX_COUNTS: dict[str | None, int] = {"F": 51_482, "M": 43_966, None: 17_552}
SEX_SHARES: dict[str | None, float] = {k: v / PAPER_PATIENTS for k, v in HHP_SEX_COUNTS.items()}
#: DaysInHospital by value (HHP members: DaysInHospital_Y2.csv, 76,038 rows, and
#: DaysInHospital_Y3.csv, 71,435 rows; 15 = "more than two weeks").
HHP_DIH_COUNTS = {
    2: {0: 64_269, 1: 4_835, 2: 2_366, 3: 1_453, 4: 977, 5: 565, 6: 373, 7: 256, 8: 173, 9: 148,
        10: 106, 11: 80, 12: 73, 13: 61, 14: 42, 15: 261},
    3: {0: 60_706, 1: 4_464, 2: 2_182, 3: 1_429, 4: 842, 5: 528, 6: 287, 7: 218, 8: 143, 9: 115,
        10: 103, 11: 65, 12: 62, 13: 50, 14: 23, 15: 218},
}
#: Members reported in both DaysInHospital tables, and those with a stay in both years (HHP
#: members); a stay in one year makes one in the other twice as likely as independence.
HHP_DIH_BOTH_REPORTED = 51_966
HHP_DIH_BOTH_POSITIVE = 2_499
#: Equivalence classes of the public members at El Emam et al. 2012's Table 5 node (age in the
#: released 10-year bands with 80+, sex, DaysInHospital as released: days to 2 weeks, 15 for
#: more; a blank or an absent DaysInHospital row is a category of its own), for each set of
#: demographics an adversary may know: the number of classes, the smallest class size, and the
#: number of classes of each size below 10 (HHP members; computed 2026-11-26 with pandas from the
#: three files; no member row is stored). Age x sex x DaysInHospital Y2 x Y3 leave 2,036 members
#: (1.80%) in classes below k = 4: the literal reading of Table 2 fails MaxSup 0.8% before any
#: claim is known (:mod:`dbt_deid.longitudinal.adversary`).
HHP_MEMBER_CLASS_SIZES: dict[tuple[str, ...], dict[str, object]] = {
    ("age", "sex", "dih_y2", "dih_y3"): {
        "classes": 2_298, "smallest": 1,
        "below_10": {1: 837, 2: 313, 3: 191, 4: 121, 5: 82, 6: 46, 7: 49, 8: 40, 9: 41}},
    ("age", "sex", "dih_y2"): {
        "classes": 430, "smallest": 1,
        "below_10": {1: 54, 2: 28, 3: 34, 4: 15, 5: 13, 6: 15, 7: 10, 8: 12, 9: 8}},
    ("age", "sex", "dih_y3"): {
        "classes": 419, "smallest": 1,
        "below_10": {1: 43, 2: 30, 3: 38, 4: 26, 5: 17, 6: 9, 7: 10, 8: 8, 9: 8}},
    ("age", "sex"): {"classes": 30, "smallest": 1_040, "below_10": {}},
}


def member_share_below(known: tuple[str, ...], k: int) -> float:
    """Share of the public HHP members in classes smaller than ``k`` (k <= 10) at the Table 5
    node when the adversary knows the demographics ``known`` (from
    :data:`HHP_MEMBER_CLASS_SIZES`)."""
    if not 1 <= k <= 10:
        raise ValueError(f"k must be in 1..10 for the committed class sizes, got {k}")
    sizes = HHP_MEMBER_CLASS_SIZES[tuple(known)]["below_10"]
    assert isinstance(sizes, dict)
    return sum(size * n for size, n in sizes.items() if size < k) / PAPER_PATIENTS


#: Relative chance of being a heavy user (many claims a year) by age band: rises with age.
AGE_HEAVY_WEIGHT = (0.6, 0.5, 0.6, 0.7, 0.8, 1.0, 1.3, 1.6, 1.7, 1.0)
SEX_SHARES: dict[str | None, float] = {"F": 0.47, "M": 0.38, None: 0.15}
#: Condition groups only women have (the generator never gives them to men).
FEMALE_ONLY_GROUPS = ("PRGNCY", "GYNEC1", "GYNECA")

# -- claims per member and year (plausible model, fitted to the El Emam et al. 2012 / HHP figures)
# --------
#: Which years a member has claims: the share of members with claims in Y1 (0.673 = 76,038 /
#: 113,000), Y2 (0.632 = 71,435 / 113,000) and Y3 (taken equal to Y2), with one, two or three
#: years (1.94 years on average). Keys: bit y-1 set when the member has claims in year y.
YEAR_PATTERNS: dict[int, float] = {
    0b111: 0.4435, 0b011: 0.0225, 0b110: 0.0225, 0b101: 0.0050,
    0b001: 0.2020, 0b010: 0.1435, 0b100: 0.1610,
}
#: Two kinds of members: light users (a few claims a year) and heavy users (chronic care, many
#: claims every year). Claims in a year = 1 + Poisson(mean x member gamma x year gamma). These
#: constants were fitted (bench/calibrate_lola_generator.py, seed 0) so that after truncation at
#: the 95th percentile per year 113,000 patients have 2,666,173 claims (El Emam et al. 2012:
#: 2,668,990), median 11 (El Emam et al. 2012: 11), at most 132 (El Emam et al. 2012: 136; HHP
#: counts: 130), 8,400 patients truncated (El Emam et al. 2012: 9,556), 3,608 of the Y1 members (HHP
#: rows: 3,972) and 861,601 / 896,371 / 908,201 claims in Y1-Y3 (HHP counts: 865,689 / 898,872 /
#: 904,429).
HEAVY_SHARE = 0.30
LIGHT_MEAN, LIGHT_SHAPE = 4.5, 1.0       # extra claims beyond the first: mean, member gamma shape
HEAVY_MEAN, HEAVY_SHAPE = 26.0, 8.0
LIGHT_YEAR_SHAPE, HEAVY_YEAR_SHAPE = 2.0, 5.0   # year-to-year gamma shapes (same member)
YEAR_FACTOR = (0.93, 1.02, 1.04)         # Y1 has fewer claims than Y2, Y3 (HHP counts)
HEAVY_YEARS_RATIO = 1.2                  # members with more years are more often heavy users

# -- hospitalization (HHP members for the figures; plausible for the heavy / light split) ------
#: Chance that a member-year with claims has a hospital stay, for light and heavy users (the
#: split is plausible), set so that 15.5% / 15.0% of the DaysInHospital Y2 / Y3 values are
#: above 0 and 2,499 of the 51,966 members reported in both years have a stay in both (HHP
#: members; measured on the generator at 113,000 patients, seed 0: see docs/lola-adversary.md).
HOSPITAL_RATE = {"light": 0.15, "heavy": 0.34}
#: Days in hospital of a member-year with a stay (15 = more than two weeks): the DaysInHospital
#: values above 0 of both years (HHP members: 22,448 member-years; 41% one day, 2.1% 15).
HOSPITAL_DAYS_COUNTS: dict[int, int] = {
    1: 9_299, 2: 4_548, 3: 2_882, 4: 1_819, 5: 1_093, 6: 660, 7: 474, 8: 316, 9: 263, 10: 209,
    11: 145, 12: 135, 13: 111, 14: 65, 15: 479,
}
HOSPITAL_DAYS_SHARES: dict[int, float] = {
    d: c / sum(HOSPITAL_DAYS_COUNTS.values()) for d, c in HOSPITAL_DAYS_COUNTS.items()}
#: Inpatient claims of a member-year with a stay: 1 + Poisson(INPATIENT_EXTRA), so that 3.2% of
#: all claims are inpatient (HHP counts: 85,776 of 2,668,990).
INPATIENT_EXTRA = 1.15

# -- within a member: repetition (plausible; HHP providers for the one published figure) ------
#: Distinct ProviderID per member over the whole release (HHP providers: 113,000 members, mean
#: 6.901301, median 5, most 50; the same tabulation gives 23.619381 claims per member). The one
#: published per-member repetition figure of the real claims.
HHP_PROVIDERS_PER_MEMBER = {"mean": 6.901301, "median": 5, "max": 50}
#: Share of a member's outpatient claims that repeat one of the member's two usual visit types
#: (the same doctor, place and kind of service), and of claims coded with one of the member's own
#: one to three (chronic) condition groups; the rest follow the population frequencies, so the
#: marginal frequencies above are kept. Plausible, not fitted: at 113,000 patients, seed 0, 0.5
#: gives 13.32 distinct providers per member in the released claims (median 8, most 91), about
#: twice HHP_PROVIDERS_PER_MEMBER. USUAL_VISIT_SHARE_FITTED (6.82, median 5, most 55) matches
#: that figure but, with the usual types drawn from the population's shares, moves the risk away
#: from El Emam et al. 2012's (Table 7 within a factor of 2 in 3 of 9 cells instead of 8; high-risk
#: share 12.7% instead of 5.5%): the generator's structure (which values repeat), not only the
#: amount, is off. Measured 2026-11-26, docs/lola-adversary.md ("Checked against the paper's
#: own release"); ``--usual-visit-share`` of bench/bench_lola*.py sets either.
USUAL_VISIT_SHARE = 0.5
USUAL_VISIT_SHARE_FITTED = 0.8
#: Share of a member's other outpatient claims (not a usual visit) that go back to the member's
#: own doctor of the claim's specialty: providers only, every claim QI stays as it is. 0 (the
#: default) leaves the generator as it was. The other way to repeat providers: at 113,000
#: patients, seed 0, released claims, 0.93 gives 6.89 distinct providers per member but median 6
#: and most 27, a narrower spread than HHP_PROVIDERS_PER_MEMBER (median 5, most 50), which
#: USUAL_VISIT_SHARE_FITTED matches (5, 55): the real figure's shape favours repeated usual
#: visits (2026-11-26, docs/lola-adversary.md).
OWN_DOCTOR_SHARE = 0.0
OWN_DOCTOR_SHARE_MEAN_FIT = 0.93
OWN_CONDITION_SHARE = 0.65
OWN_CHARLSON_SHARE = 0.85
#: Claims of a year come in episodes (a visit with its lab work and follow-ups): a year with n
#: claims has 1 + Binomial(n - 1, EPISODE_RATE) episodes; a claim is on its episode's day
#: (SAME_DAY_SHARE) or up to two weeks later.
EPISODE_RATE = 0.5
SAME_DAY_SHARE = 0.6
#: Day of the year of a member's first claim: FIRST_CLAIM_WINDOW x U ** FIRST_CLAIM_POWER with U
#: uniform, so most members have their first claim early in the year.
FIRST_CLAIM_WINDOW = 330
FIRST_CLAIM_POWER = 2.5
#: Relative chance that an episode starts in each 30-day month after the first claim, solved
#: (bench/calibrate_lola_generator.py) so that DSFS by month matches DSFS_MONTH_COUNTS.
EPISODE_MONTH_WEIGHTS = (1.0, 0.867, 0.935, 1.021, 1.002, 1.168, 1.194, 1.325, 1.485, 1.487,
                         1.331, 0.197, 1.0)

# -- pay delay (plausible: log-normal, median 34 days; about 1% above 162, the release's
#    top-code "162+" in the HHP dictionary) -----------------------------------------------------
PAY_DELAY_MEDIAN, PAY_DELAY_SIGMA = 34.0, 0.67

# -- the joint structure of place, specialty and procedure (plausible) --------------------------
#: Specialties usually seen at each place, and procedure groups each specialty usually bills.
#: Cells outside these lists get weight ATYPICAL; iterative proportional fitting then scales the
#: table to the three HHP marginals above, so a claim's place, specialty and procedure are
#: consistent with each other and each column keeps its HHP frequencies.
USUAL_SPECIALTIES: dict[str, tuple[str, ...]] = {
    "Ambulance": ("Emergency", "Other"),
    "Home": ("Rehabilitation", "Other", "Internal", "General Practice"),
    "Independent Lab": ("Laboratory", "Pathology"),
    "Inpatient Hospital": ("Internal", "Surgery", "Emergency", "Anesthesiology",
                           "Obstetrics and Gynecology", "General Practice", "Pathology",
                           "Diagnostic Imaging", "Pediatrics"),
    "Office": ("Internal", "General Practice", "Pediatrics", "Obstetrics and Gynecology",
               "Surgery", "Rehabilitation", "Other", "Diagnostic Imaging", "Laboratory"),
    "Other": ("Other", "Rehabilitation", "Laboratory"),
    "Outpatient Hospital": ("Surgery", "Diagnostic Imaging", "Emergency", "Anesthesiology",
                            "Laboratory", "Pathology", "Rehabilitation"),
    "Urgent Care": ("Emergency", "General Practice", "Internal", "Pediatrics",
                    "Diagnostic Imaging", "Laboratory"),
}
USUAL_PROCEDURES: dict[str, tuple[str, ...]] = {
    "Anesthesiology": ("ANES",),
    "Diagnostic Imaging": ("RAD",),
    "Emergency": ("EM", "MED", "RAD", "SIS"),
    "General Practice": ("EM", "MED", "PL", "SCS", "SIS"),
    "Internal": ("EM", "MED", "PL", "SCS"),
    "Laboratory": ("PL", "SCS", "MED"),       # SCS holds venipuncture (CPT 36415)
    "Obstetrics and Gynecology": ("EM", "SMCD", "SGS", "PL", "RAD"),
    "Other": ("MED", "EM", "SMS", "RAD"),
    "Pathology": ("PL",),
    "Pediatrics": ("EM", "MED"),
    "Rehabilitation": ("MED", "EM", "SMS"),
    "Surgery": ("EM", "SCS", "SDS", "SIS", "SMS", "SGS", "SEOA", "SRS", "SNS", "SAS", "SUS",
                "SO", "SMCD"),
}
ATYPICAL = 0.02


def shares(counts: dict) -> tuple[list, np.ndarray]:
    """(values, shares) of a counts mapping, in its order."""
    values = list(counts)
    w = np.array([counts[v] for v in values], dtype=np.float64)
    return values, w / w.sum()


def present(counts: dict) -> dict:
    """The counts without the missing (None) key."""
    return {k: v for k, v in counts.items() if k is not None}


def missing_share(counts: dict) -> float:
    """Share of missing values (key None) in a counts mapping."""
    return counts.get(None, 0) / sum(counts.values())


PLACES = tuple(present(PLACE_OF_SERVICE_COUNTS))
SPECIALTIES = tuple(present(SPECIALTY_COUNTS))
PROCEDURE_GROUPS = tuple(present(PROCEDURE_GROUP_COUNTS))
PRIMARY_CONDITION_GROUPS = tuple(present(PRIMARY_CONDITION_GROUP_COUNTS))
CHARLSON = tuple(CHARLSON_COUNTS)


@cache
def visit_joint() -> np.ndarray:
    """(place, specialty, procedure) claim shares: the usual-combination table scaled by
    iterative proportional fitting to the HHP marginals of the three columns (missing values
    excluded; they are added per column afterwards)."""
    pl, sp, pr = PLACES, SPECIALTIES, PROCEDURE_GROUPS
    a = np.full((len(pl), len(sp)), ATYPICAL)
    for p, specs in USUAL_SPECIALTIES.items():
        for s in specs:
            a[pl.index(p), sp.index(s)] = 1.0
    b = np.full((len(sp), len(pr)), ATYPICAL)
    for s, procs in USUAL_PROCEDURES.items():
        for r in procs:
            b[sp.index(s), pr.index(r)] = 1.0
    joint = a[:, :, None] * b[None, :, :]
    targets = [shares(present(c))[1] for c in (PLACE_OF_SERVICE_COUNTS, SPECIALTY_COUNTS,
                                               PROCEDURE_GROUP_COUNTS)]
    joint /= joint.sum()
    for _ in range(500):
        for axis, target in enumerate(targets):
            other = tuple(i for i in range(3) if i != axis)
            margin = joint.sum(axis=other)
            shape = [1, 1, 1]
            shape[axis] = -1
            joint *= (target / margin).reshape(shape)
    return joint / joint.sum()


# -- attack 2 population (illustrative) ----------------------------------------------------------
#: El Emam et al. 2012's attack 2 counts people per sex and 5-year age band (to 90+) in the counties
#: HPN serves, from the 2000 census. We do not have those counts: this is an illustrative age
#: profile (share of people per 5-year band, the last band 80-99) of a population of
#: ILLUSTRATIVE_POPULATION_TOTAL people - the order of the Los Angeles area's population - spread
#: evenly over the years of each band (so that it rolls up to any level of the age hierarchy,
#: single years included) and split evenly by sex (women 60% from 80). Not census figures.
ILLUSTRATIVE_POPULATION_TOTAL = 10_000_000
ILLUSTRATIVE_AGE_PROFILE = (
    0.075, 0.078, 0.075, 0.072, 0.070, 0.074, 0.078, 0.080, 0.074, 0.064, 0.054, 0.041, 0.033,
    0.029, 0.026, 0.021, 0.036,
)


def illustrative_population() -> pd.DataFrame:
    """The illustrative attack 2 population: columns ``age`` (years 0-99, the age hierarchy's
    level 0), ``sex`` (F, M) and ``population``."""
    w = np.asarray(ILLUSTRATIVE_AGE_PROFILE) / sum(ILLUSTRATIVE_AGE_PROFILE)
    rows = []
    for i, share in enumerate(w):
        years = range(5 * i, 5 * i + 5) if i < len(w) - 1 else range(5 * i, 100)
        women = 0.6 if i == len(w) - 1 else 0.5
        per_year = ILLUSTRATIVE_POPULATION_TOTAL * share / len(years)
        for a in years:
            rows.append((a, "F", int(round(per_year * women))))
            rows.append((a, "M", int(round(per_year * (1 - women)))))
    return pd.DataFrame(rows, columns=["age", "sex", "population"])


# -- the paper's released node and results (El Emam et al. 2012 Table 5, "Results", Table 7)
# -------------
#: Table 5 in the levels of :func:`dbt_deid.longitudinal.hierarchies.default_hierarchies`: age
#: in 10-year bands with 80+ (level 2), days in hospital to 2 weeks then ">2 weeks" (level 1),
#: LOS in days up to 6 then the week bands (level 2), days since first claim in 4 weeks (level 3).
TABLE5_LEVELS = {"age": 2, "days_in_hospital": 1, "los": 2, "dsfc": 3}
PAPER_MAX_SUP = 0.008                    # "Acceptable Re-identification Risk": met by Table 5
PAPER_ATTACK1 = 0.0084                   # "Results": simulated attack 1 on the release
PAPER_ATTACK2 = 0.000005                 # "Results": 0.0005% matched to the voter list
#: Table 7: attack 1 success by assumption and adversary power p_m.
PAPER_TABLE7 = {
    "values": {5: 0.0084, 10: 0.0094, 15: 0.0117},
    "whole_claim": {5: 0.0367, 10: 0.0372, 15: 0.0387},
    "ordered_pair": {5: 0.0096, 10: 0.0100, 15: 0.0120},
}
