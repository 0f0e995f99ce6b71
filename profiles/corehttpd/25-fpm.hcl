# 25-fpm.hcl: the one PHP-FPM pool every FPM profile talks to, byte-identical
# in profiles/{tuned-apache,corehttpd,caddy}/ (profiles/shared_test.go).
# Swapping between these profiles leaves the pool running untouched.
#
# Each FPM profile's platform blocks must define: packages.php_fpm,
# packages.php_opcache, paths.fpm_pool_dir, paths.fpm_socket,
# paths.fpm_opcache_ini, services.php_fpm, values.web_user, values.web_group.

variable "fpm_max_children" {
  type        = number
  default     = 8
  description = "pm.max_children of the shared pool (the first seed's PHP-FPM ran eight workers)."
  validation {
    condition     = var.fpm_max_children >= 1 && var.fpm_max_children <= 512
    error_message = "fpm_max_children must be between 1 and 512."
  }
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
  restart_on = ["command.fpm_default_pool_off", "file.fpm_pool", "file.fpm_opcache"]
  start      = "${local.svc} ${platform.services.php_fpm} start"
  stop       = "${local.svc} ${platform.services.php_fpm} stop"
  restart    = "${local.svc} ${platform.services.php_fpm} restart"
  reload     = "${local.svc} ${platform.services.php_fpm} reload"
  status     = "${local.svc} ${platform.services.php_fpm} status"
  ready      = "test -S ${platform.paths.fpm_socket}"
}
