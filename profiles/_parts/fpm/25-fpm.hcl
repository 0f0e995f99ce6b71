# The fpm part: the one PHP-FPM pool every FPM profile talks to
# (profile.uses = ["site", "fpm"]). Swapping between these profiles leaves
# the pool running untouched. It uses the site part's keys (site user,
# web user and group, wptest-svc).

platform "debian-12" {
  packages = {
    php_fpm     = "php${var.php_version}-fpm"
    php_opcache = "php${var.php_version}-opcache"
  }
  paths = {
    fpm_pool_dir    = "/etc/php/${var.php_version}/fpm/pool.d"
    fpm_socket      = "/run/php/php-fpm-wptest.sock"
    fpm_opcache_ini = "/etc/php/${var.php_version}/fpm/conf.d/99-wptest-opcache.ini"
    fpm_ini         = "/etc/php/${var.php_version}/fpm/php.ini"
    fpm_scan_dir    = "/etc/php/${var.php_version}/fpm/conf.d"
  }
  services = {
    php_fpm = "php${var.php_version}-fpm"
  }
}

platform "debian-13" {
  packages = {
    php_fpm     = "php${var.php_version}-fpm"
    php_opcache = "php${var.php_version}-opcache"
  }
  paths = {
    fpm_pool_dir    = "/etc/php/${var.php_version}/fpm/pool.d"
    fpm_socket      = "/run/php/php-fpm-wptest.sock"
    fpm_opcache_ini = "/etc/php/${var.php_version}/fpm/conf.d/99-wptest-opcache.ini"
    fpm_ini         = "/etc/php/${var.php_version}/fpm/php.ini"
    fpm_scan_dir    = "/etc/php/${var.php_version}/fpm/conf.d"
  }
  services = {
    php_fpm = "php${var.php_version}-fpm"
  }
}

platform "almalinux-9" {
  packages = {
    php_fpm     = "php-fpm"
    php_opcache = "php-opcache"
  }
  paths = {
    fpm_pool_dir    = "/etc/php-fpm.d"
    fpm_socket      = "/run/php-fpm/php-fpm-wptest.sock"
    fpm_opcache_ini = "/etc/php.d/99-wptest-opcache.ini"
    fpm_ini         = "/etc/php.ini"
    fpm_scan_dir    = "/etc/php.d"
  }
  services = {
    php_fpm = "php-fpm"
  }
}

variable "fpm_max_children" {
  type        = number
  default     = 8
  description = "pm.max_children of the shared pool (the cPanel vs corehttpd post's PHP-FPM ran eight workers)."
  validation {
    condition     = var.fpm_max_children >= 1 && var.fpm_max_children <= 512
    error_message = "fpm_max_children must be between 1 and 512."
  }
}

# What shapes the pool without being written here: every pool in the
# pool directory (a hand-edited pm.max_children is drift), PHP-FPM's
# php.ini and the ini files it reads.
watch "PHP-FPM" {
  paths = [platform.paths.fpm_pool_dir, platform.paths.fpm_ini, platform.paths.fpm_scan_dir]
}

package "php_fpm" {
  names = distinct([platform.packages.php_fpm, platform.packages.php_opcache])
}

# The distribution's default pool ("www") is moved aside: one pool only.
command "fpm_default_pool_off" {
  only_if = "test -e ${platform.paths.fpm_pool_dir}/www.conf"
  run     = "mv -f ${platform.paths.fpm_pool_dir}/www.conf ${platform.paths.fpm_pool_dir}/www.conf.wptest-off"
}

file "fpm_pool" {
  path     = "${platform.paths.fpm_pool_dir}/${var.site_user}.conf"
  template = "templates/fpm/pool.conf"
}

file "fpm_opcache" {
  path     = platform.paths.fpm_opcache_ini
  template = "templates/fpm/opcache.ini"
}

service "php_fpm" {
  name       = platform.services.php_fpm
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  # A PHP package installed later (an extension, WordPress's) is loaded
  # only by a restarted php-fpm.
  restart_on = ["command.php_stream", "command.fpm_default_pool_off", "file.fpm_pool", "file.fpm_opcache", "package.php_fpm", "package.php_extensions", "package.wordpress"]
  start      = "${local.svc} ${platform.services.php_fpm} start"
  stop       = "${local.svc} ${platform.services.php_fpm} stop"
  restart    = "${local.svc} ${platform.services.php_fpm} restart"
  reload     = "${local.svc} ${platform.services.php_fpm} reload"
  status     = "${local.svc} ${platform.services.php_fpm} status"
  ready      = "test -S ${platform.paths.fpm_socket}"
}

# PHP-FPM's master runs as root, its workers as the site user.
process_group "php" {
  exe = [platform.values.php_fpm_exe]
}

# OPcache keeps compiled PHP until it revalidates (60 s): after seeding, a
# graceful reload makes the pool serve the new site at once.
site_refresh "php_fpm" {
  run = "${local.svc} ${platform.services.php_fpm} reload"
}

# Every profile in front of this pool proves PHP runs there: FPM's SAPI, as
# the site user, with OPcache.
check "php_fpm_opcache_site_user" {
  timeout = "20s"
  http {
    url               = "http://127.0.0.1:${var.http_port}/wptest-info.php"
    expect_body_regex = "\"sapi\":\"fpm-fcgi\".*\"user\":\"${var.site_user}\",\"opcache\":true"
  }
}
