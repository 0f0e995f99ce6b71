# demo: the provisioner's own test profile. It installs nothing: it writes
# files from templates, runs guarded commands and keeps a tiny HTTP service
# (python3, started with start-stop-daemon, reloaded with SIGHUP) running
# under var.root, and proves it with checks.

profile {
  description = "Test profile: files from templates, guarded commands, a tiny HTTP service; installs nothing"
  platforms   = ["debian-12", "almalinux-9"]
  aliases     = ["demo-test"]
  # The runtime part (../_parts/runtime) brings python: its package, its
  # platform keys, the server script, and what the profile says of itself.
  uses = ["runtime"]
}

variable "root" {
  type        = string
  default     = "/tmp/wptest-demo"
  description = "every file the profile writes lives under this directory"
  validation {
    condition     = startswith(var.root, "/") && !strcontains(var.root, " ")
    error_message = "root must be an absolute path without spaces."
  }
}

variable "port" {
  type        = number
  default     = 18080
  description = "loopback port of the demo service"
  validation {
    condition     = var.port > 1024 && var.port < 65536
    error_message = "port must be between 1025 and 65535."
  }
}

variable "greeting" {
  type        = string
  default     = "hello"
  description = "what the service answers (its config file; a change reloads it)"
}

variable "title" {
  type    = string
  default = "wptest demo"
}

variable "token" {
  type      = string
  default   = "s3cret-demo-token"
  sensitive = true
}

variable "fail" {
  type        = bool
  default     = false
  description = "make command.step fail (tests that a failing command stops apply)"
}

locals {
  etc     = "${var.root}/etc"
  state   = "${var.root}/state"
  pidfile = "${var.root}/run/demo.pid"
  conf    = "${local.etc}/demo.json"
  python  = platform.values.python
}

platform "debian-12" {
  package_manager = "apt"
  paths           = { ssd = "/sbin/start-stop-daemon" }
}

platform "almalinux-9" {
  package_manager = "dnf"
  paths           = { ssd = "/usr/sbin/start-stop-daemon" }
  deviations      = ["start-stop-daemon comes from EPEL (dpkg), not the base OS"]
}
