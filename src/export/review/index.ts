/** The access review of `--check`: compare (pure), accept (pure), render. */
export { acceptAccess } from "./accept";
export { type AccessDifference, type CompareOptions, compareAccess, DIFFERENCE_KINDS, type DifferenceSide } from "./differences";
export { type RenderOptions, REVIEW_FORMATS, REVIEW_JSON_VERSION, type Review, type ReviewFormat, renderReview } from "./render";
