# PHP's version, chosen before any PHP package is installed (this file runs
# after 05-repos.hcl and before every profile's 10-*.hcl).
#
# One variable, php_version, with a default per platform (platform_default,
# below: the one place the profiles name a PHP version besides the post's
# own in fact.php_version): every PHP package, path, service, binary and
# handler name derives from it. Whether a host runs the post's PHP is
# decided by what it runs (fact.php_version, 90-facts.hcl), not by this.
# - debian-12 and debian-13 each ship one PHP (phpX.Y-*): their defaults.
# - almalinux-9's plain php packages are an older PHP; newer PHP comes as
#   dnf module streams of AppStream, enabled before a PHP package is
#   installed (the package op cannot, so a command does it here). Its
#   default, MAJOR.x, takes the newest php:MAJOR.* stream the host offers:
#   the post's where AppStream has it (Red Hat's RHEL 9 guide lists two
#   streams, later 9.x minors add newer ones; no AlmaLinux mirror is
#   reachable from here to check which minor adds which). The apply says
#   which stream it enabled, and the host manifest which PHP runs.
# A version the host does not offer stops the apply, naming those it does.

variable "php_version" {
  type = string
  platform_default = {
    "debian-12"   = "8.2"
    "debian-13"   = "8.4"
    "almalinux-9" = "8.x"
  }
  description = "PHP version MAJOR.MINOR; every PHP package, service and path follows it. The default is the platform's (platform_default); on almalinux-9 MAJOR.x is the newest php:MAJOR.* AppStream module stream the host offers."
  validation {
    condition     = can(regex("^[0-9]+\\.([0-9]+|x)$", var.php_version))
    error_message = "php_version must be MAJOR.MINOR (or MAJOR.x on almalinux-9: the newest stream the host offers)."
  }
}

precondition {
  condition     = platform.package_manager != "apt" || can(regex("^[0-9]+\\.[0-9]+$", var.php_version))
  error_message = "php_version: Debian names its PHP packages by MAJOR.MINOR (phpMAJOR.MINOR-cli); give one, as -var php_version=MAJOR.MINOR."
}

# apt: the version's packages are in the host's sources (Debian has one PHP
# per release); else stop before anything is installed, naming those it has.
# Installed already (held or not) is answer enough: dpkg-query asks in
# milliseconds what apt-cache answers by building its package cache (half
# a second of CPU at every apply).
command "php_packages_available" {
  when   = platform.package_manager == "apt"
  unless = "dpkg-query -W -f='$${Status}' php${var.php_version}-cli 2>/dev/null | grep -qx '[a-z]* ok installed' || apt-cache show php${var.php_version}-cli >/dev/null 2>&1"
  run    = <<-EOT
    set -eu
    apt-get -o DPkg::Lock::Timeout=600 -q update >/dev/null
    if apt-cache show php${var.php_version}-cli >/dev/null 2>&1; then exit 0; fi
    offered=$(apt-cache pkgnames php | sed -n 's/^php\([0-9][0-9.]*\)-cli$/\1/p' | sort -u -V | paste -sd ' ' -)
    echo "php_version ${var.php_version}: this host's apt sources have no php${var.php_version}-cli; they offer PHP $${offered:-none}" >&2
    exit 1
  EOT
}

# dnf: the AppStream stream php_version names (MAJOR.x: the newest
# MAJOR.* one offered) in $stream, empty when the host offers none.
locals {
  php_stream_pick = <<-EOT
    offered=$(dnf -q module list php 2>/dev/null | awk '$1 == "php" && $2 ~ /^[0-9]/ { print $2 }' | sort -u -V)
    case '${var.php_version}' in
    *.x) stream=$(printf '%s\n' $offered | awk -F. -v major='${trimsuffix(var.php_version, ".x")}' '$1 == major' | tail -n1) ;;
    *) stream=$(printf '%s\n' $offered | awk -v want='${var.php_version}' '$0 == want') ;;
    esac
  EOT
}

# Enable the stream. PHP packages of another stream already on the host (or
# the platform's plain PHP) are switched to this one. Done when the stream is
# enabled and the installed PHP, if any, is its version.
command "php_stream" {
  when   = platform.package_manager == "dnf"
  bake   = true # before the PHP packages in an image too
  unless = <<-EOT
    ${chomp(local.php_stream_pick)}
    enabled=$(dnf -q module list --enabled php 2>/dev/null | awk '$1 == "php" { print $2 }')
    [ -n "$stream" ] && [ "$enabled" = "$stream" ] && { ! rpm -q php-common >/dev/null 2>&1 || [ "$(rpm -q --qf '%%{VERSION}' php-common | cut -d. -f1,2)" = "$stream" ]; }
  EOT
  run    = <<-EOT
    set -eu
    ${chomp(local.php_stream_pick)}
    if [ -z "$stream" ]; then
      echo "php_version ${var.php_version}: this host's AppStream offers the php module streams: $(echo $${offered:-none}) (dnf module list php)" >&2
      exit 1
    fi
    dnf -y module reset php
    dnf -y module enable "php:$stream"
    if rpm -q php-common >/dev/null 2>&1; then dnf -y distro-sync 'php*'; fi
    echo "php_version ${var.php_version}: enabled the AppStream module stream php:$stream"
  EOT
}
