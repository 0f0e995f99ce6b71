package report_test

// The package's tests see every kind wptest is built with (an external
// test file: kinds/all imports report).
import _ "github.com/wptest/wptest/kinds/all"
