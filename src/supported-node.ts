/** Imported first by every entry point: on a Node.js older than supported, loading the package throws one line saying so. */
import { nodeVersionProblem } from "./node-version";

const problem = nodeVersionProblem();
if (problem !== undefined) {
  const error = new Error(problem);
  // One line wherever it is printed: the stack would only point here.
  error.stack = `Error: ${problem}`;
  throw error;
}
