# PHP's version, chosen before any PHP package is installed (this file runs
# after 05-repos.hcl and before every profile's 10-*.hcl).
#
# The cPanel vs corehttpd post ran PHP 8.4 on every server. Neither platform
# ships it:
# - debian-12 has PHP 8.2 only (php8.2-*).
# - almalinux-9's plain php packages are PHP 8.0; newer PHP comes as dnf
#   module streams of AppStream, which must be enabled before a PHP package
#   is installed (the package op cannot, so a command does it here). What we
#   found (no AlmaLinux mirror is reachable from here, so not checked on a
#   host): Red Hat's RHEL 9 guide lists php:8.1 and php:8.2; Rocky Linux 9's
#   PHP guide shows `dnf module list php` with 8.1, 8.2 and 8.3, and EL9
#   packaging notes say AppStream offers 8.1-8.3 and 8.4 needs Remi's
#   repository. php:8.3 came with the 9.6 minor release. Fairly sure 8.3 is
#   the newest stream of AlmaLinux 9.6 and later (the first seed ran 9.8);
#   not sure no later 9.x minor adds php:8.4: pass -var php_version=8.4 then,
#   and the apply fails naming the streams the host offers if it has none.

variable "php_version" {
  type        = string
  default     = ""
  description = "PHP version (the post ran 8.4). almalinux-9: the AppStream module stream to enable (empty: 8.3, the newest AlmaLinux 9 offers); debian-12 has 8.2 only (empty or 8.2)."
  validation {
    condition     = var.php_version == "" || can(regex("^[0-9]+\\.[0-9]+$", var.php_version))
    error_message = "php_version must be MAJOR.MINOR, e.g. 8.3 (or empty for the platform's newest)."
  }
}

platform "debian-12" {
  values = {
    php_version = "8.2"
  }
  deviations = ["PHP 8.2 (Debian 12's own packages) instead of the post's PHP 8.4"]
}

platform "almalinux-9" {
  values = {
    php_version = var.php_version == "" ? "8.3" : var.php_version
  }
  deviations = (var.php_version == "" ? "8.3" : var.php_version) == "8.4" ? [] : ["PHP ${var.php_version == "" ? "8.3" : var.php_version} (AlmaLinux 9 AppStream module stream php:${var.php_version == "" ? "8.3" : var.php_version}) instead of the post's PHP 8.4"]
}

precondition {
  condition     = platform.name != "debian-12" || var.php_version == "" || var.php_version == "8.2"
  error_message = "php_version: debian-12 has PHP 8.2 only (php8.2-* packages); leave php_version unset or set it to 8.2."
}

# Enable the stream (a version AppStream does not offer fails, naming the
# ones it does). PHP packages of another stream already on the host (or of
# the default PHP 8.0) are switched to this one. Done when the stream is
# enabled and the installed PHP, if any, is its version.
command "php_stream" {
  when   = platform.package_manager == "dnf"
  unless = "dnf -q module list --enabled php 2>/dev/null | awk '$1 == \"php\" { print $2 }' | grep -qx '${platform.values.php_version}' && { ! rpm -q php-common >/dev/null 2>&1 || rpm -q --qf '%%{VERSION}\\n' php-common | grep -q '^${replace(platform.values.php_version, ".", "\\.")}\\.'; }"
  run    = <<-EOT
    set -eu
    offered=$(dnf -q module list php 2>/dev/null | awk '$1 == "php" && $2 ~ /^[0-9]/ { print $2 }' | sort -u -V | paste -sd ' ' -)
    case " $offered " in
    *' ${platform.values.php_version} '*) ;;
    *) echo "php_version ${platform.values.php_version}: this host's AppStream offers the php module streams: $${offered:-none} (dnf module list php)" >&2; exit 1 ;;
    esac
    dnf -y module reset php
    dnf -y module enable php:${platform.values.php_version}
    if rpm -q php-common >/dev/null 2>&1; then dnf -y distro-sync 'php*'; fi
  EOT
}
