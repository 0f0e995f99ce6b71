package experiment

// The machines drivers, as the binary has them: experiment files name them.
import _ "github.com/wptest/wptest/provision/cloud/drivers"
