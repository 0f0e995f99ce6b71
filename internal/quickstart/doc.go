// Package quickstart holds the tests that keep README.md's quick start
// true: its commands run as written, and the links of README.md and
// docs/ lead to files that exist. It has no code of its own; the README
// marks the blocks it runs with the fence info strings "sh quickstart"
// and "sh quickstart-offline".
package quickstart
