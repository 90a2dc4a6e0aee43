export { criteriaSha256, parseCriteriaSet, type AcceptanceCriterion, type Comparator, type CriteriaDeviation, type CriteriaLock, type CriteriaSet, type CriterionStatistic } from './criteria.ts';
export { describeCriterion, evaluateCriteria, formatCriterionValue, outcomeReason, type CriteriaInput, type CriterionEvidence, type CriterionOutcome, type CriterionStatus } from './evaluate.ts';
export { loadRunCriteria, runCriteriaView, type RunCriteriaView } from './for-run.ts';
