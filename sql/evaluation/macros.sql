-- defines: zero_by_zero, blended_ratio, repeated_powers
-- params: none
-- Formulas more than one metric family uses, defined once as macros of the evaluation's
-- connection (created before the stages; pyeval/core/evaluation.py).

-- 0/0 as trec_eval's C code computes it on x86-64: a NaN with the sign bit set, which printf
-- prints as -nan (and which stays -nan through trec_eval's sums and means). Measures that
-- trec_eval leaves undefined return it: IPrec on an empty list, RnDCG without an R-level.
create or replace temp macro zero_by_zero() as -'nan'::double;

-- The blended ratio BR(r) = (beta cg(r) + C(r)) / (beta cg*(r) + r) (Sakai, AIRS 2005;
-- NTCIREVAL): Q-measure, O-, P-, P-plus, R-measure, NCU(util=BR), EBR.
create or replace temp macro blended_ratio(beta, gain_so_far, relevant_so_far, ideal_gain_so_far, rank) as
    (beta * gain_so_far + relevant_so_far) / (beta * ideal_gain_so_far + rank);

-- [p^0, p^1, ..., p^top] (index r holds p^(r-1)), by repeated multiplication as trec_eval's
-- loops compute them (cur_p = cur_p * p: m_rbp.c, m_rbp_resid.c). pow() can differ in the last
-- bit, which can turn a printed 4th decimal. The reduced list holds one [1.0] per step (not the
-- step numbers): DuckDB 1.x wants the initial value of the type of the list's elements.
create or replace temp macro repeated_powers(p, top) as
    list_reduce(list_transform(range(top), lambda step: [1.0::double]),
                lambda powers, step: list_append(powers, powers[array_length(powers)] * p), [1.0::double]);
