-- reads: evaluation_document_gains
-- produces: evaluation_gain_maxima (profile, topic_id, max_gain)
-- grain: profile, topic_id
-- params: $profile
-- diversity_gain_maxima (temp table evaluation_gain_maxima of a D- or DIN-staging): gmax of
-- each topic, the largest global gain of a judged document (NTCIREVAL's gcompute: the largest
-- gain of the ideal file), for ERR, EBR, iRBU (stop g/(gmax + 1)) and RBP(gain_norm=gmax).
-- Reference: docs/diversity-measures.md section 3.2; docs/adhoc-measures.md section 3.
select
    $profile as profile,
    topic_id,
    max(gain) as max_gain
from evaluation_document_gains
group by topic_id
