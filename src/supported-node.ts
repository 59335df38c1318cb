/**
 * Imported first by the package's entry points (the program's `index`, the provider host's
 * `provider/*`, the emulator's): on a Node.js older than supported, loading the package throws one
 * line naming the version found and the version needed.
 */
import { nodeVersionProblem } from "./node-version";

const problem = nodeVersionProblem();
if (problem !== undefined) {
  const error = new Error(problem);
  // One line wherever it is printed: the stack would only point here.
  error.stack = `Error: ${problem}`;
  throw error;
}
