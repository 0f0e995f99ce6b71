package results_test

// The package's tests see every kind wptest is built with: those of their
// own packages register here, so TestMetricsVocabulary holds their figures
// to its rules too. (An external test file: kinds/all imports results.)
import _ "github.com/wptest/wptest/kinds/all"
