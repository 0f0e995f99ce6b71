package crowd

// Kind is the kind's run half, for the package's external tests.
var Kind = kind{}
