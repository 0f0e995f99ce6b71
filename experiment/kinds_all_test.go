package experiment_test

// The package's tests see every kind wptest is built with: the shipped
// experiment files, the error goldens and the plans name them (an external
// test file: kinds/all's kinds import this package).
import _ "github.com/wptest/wptest/kinds/all"
