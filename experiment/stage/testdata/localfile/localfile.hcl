# localfile: a test profile that installs one file from a file:// URL,
# checked against its SHA-256 first, as the shipped profiles install
# their downloads (corehttpd's package_source, mod_ruid2's source).

profile {
  description = "Test profile: one file from a file:// URL, checked against its SHA-256"
  platforms   = ["debian-12", "debian-13"]
}

variable "src" {
  type        = string
  description = "file:/// URL of the file on the host"
  validation {
    condition     = can(regex("^file:///[^%[:space:][:cntrl:]]+$", var.src))
    error_message = "src must be a file:/// URL without spaces or percent signs."
  }
}

variable "src_sha256" {
  type = string
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", var.src_sha256))
    error_message = "src_sha256 must be 64 lower-case hex digits."
  }
}

platform "debian-12" {
  package_manager = "apt"
}

platform "debian-13" {
  package_manager = "apt"
}

command "install_src" {
  unless = "test \"$(cat /root/installed.sha256 2>/dev/null)\" = '${var.src_sha256}'"
  run    = <<-EOT
    set -eu
    src=${shellquote(var.src)}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp -- "$${src#file://}" "$tmp/f"
    got=$(sha256sum "$tmp/f" | cut -d' ' -f1)
    if [ "$got" != '${var.src_sha256}' ]; then
      echo "source $src: sha256 $got, want ${var.src_sha256}" >&2
      exit 1
    fi
    install -m 0644 "$tmp/f" /root/installed
    echo '${var.src_sha256}' >/root/installed.sha256
  EOT
}
