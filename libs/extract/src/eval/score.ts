/** One case of the extraction set, as in `cases.json`. */
export interface EvalCase {
  file: string;
  with: string[];
  without: string[];
}

export interface CaseScore {
  id: string;
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  /** `with` snippets absent from the text (false negatives). */
  missing: string[];
  /** `without` snippets present in the text (false positives). */
  leaked: string[];
}

export interface Score {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
  precision: number;
  recall: number;
  f1: number;
  cases: CaseScore[];
}

/** Folds every run of white space into one space, as the set's README says (no trimming). */
export function foldWhiteSpace(text: string): string {
  return text.replace(/\s+/g, ' ');
}

export function scoreCase(id: string, testCase: EvalCase, extracted: string | undefined): CaseScore {
  const text = foldWhiteSpace(extracted ?? '');
  const result: CaseScore = { id, tp: 0, fn: 0, fp: 0, tn: 0, missing: [], leaked: [] };
  for (const snippet of testCase.with) {
    if (text.includes(foldWhiteSpace(snippet))) result.tp++;
    else {
      result.fn++;
      result.missing.push(snippet);
    }
  }
  for (const snippet of testCase.without) {
    if (text.includes(foldWhiteSpace(snippet))) {
      result.fp++;
      result.leaked.push(snippet);
    } else result.tn++;
  }
  return result;
}

/**
 * Scores extracted texts against the cases: sums TP/FN/FP over all cases, then P, R and F1.
 * A case with no extracted text counts as an empty extraction.
 */
export function score(
  cases: ReadonlyMap<string, EvalCase> | Readonly<Record<string, EvalCase>>,
  extracted: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): Score {
  const entries = cases instanceof Map ? [...cases.entries()] : Object.entries(cases);
  const textOf = (id: string): string | undefined =>
    extracted instanceof Map ? extracted.get(id) : (extracted as Record<string, string>)[id];
  const total: Score = { tp: 0, fn: 0, fp: 0, tn: 0, precision: 0, recall: 0, f1: 0, cases: [] };
  for (const [id, testCase] of entries) {
    const one = scoreCase(id, testCase, textOf(id));
    total.tp += one.tp;
    total.fn += one.fn;
    total.fp += one.fp;
    total.tn += one.tn;
    total.cases.push(one);
  }
  total.precision = ratio(total.tp, total.tp + total.fp);
  total.recall = ratio(total.tp, total.tp + total.fn);
  total.f1 = ratio(2 * total.precision * total.recall, total.precision + total.recall);
  return total;
}

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}
