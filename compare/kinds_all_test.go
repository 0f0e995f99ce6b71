package compare_test

// The package's tests see every kind wptest is built with (an external
// test file: kinds/all's kinds import results, which compare reads).
import _ "github.com/wptest/wptest/kinds/all"
