export { criteriaSha256, parseCriteriaSet, type AcceptanceCriterion, type Comparator, type CriteriaDeviation, type CriteriaLock, type CriteriaSet, type CriterionStatistic } from './criteria.ts';
export { criterionMetricLabel, describeCriterion, evaluateCriteria, formatCriterionValue, isSafetyMetric, outcomeReason, SAFETY_CRITERION_METRICS, safetySubgroups, type CriteriaInput, type CriterionEvidence, type CriterionOutcome, type CriterionStatus } from './evaluate.ts';
export { loadRunCriteria, needsSafety, runCriteriaView, runSafety, type RunCriteriaView } from './for-run.ts';
