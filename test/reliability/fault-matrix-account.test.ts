/** The fault matrix, part 2: token expiry, balance running out, drift, retry budgets, all together. */
import { faultMatrix } from "./faultMatrix.js"
import { faultScenarios } from "./faults.js"

faultMatrix("fault matrix: credentials, balance, drift, budgets, all together", faultScenarios().slice(5))
