# 27-fpm-selinux.hcl: PHP-FPM on almalinux-9 runs confined, in httpd_t
# (RHEL labels /usr/sbin/php-fpm httpd_exec_t), whichever web server talks
# to it. It reads the site by the labels of the site part (07-selinux.hcl)
# and needs one boolean: the site's database is MariaDB on 127.0.0.1:3306
# (DB_HOST in the site's credentials), a TCP connection httpd_t may make
# only with httpd_can_network_connect_db. Not httpd_can_network_connect:
# PHP here connects nowhere else.
command "selinux_fpm_database" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "getsebool httpd_can_network_connect_db | grep -q -- '--> on$'"
  run     = "setsebool -P httpd_can_network_connect_db on"
}

# PHP-FPM is confined: every php-fpm process runs in httpd_t.
check "php_fpm_confined" {
  when = platform.package_manager == "dnf"
  command {
    run          = "if selinuxenabled 2>/dev/null; then echo \"php-fpm runs as: $(ps -C php-fpm -o label= | cut -d: -f3 | sort -u | paste -sd ' ')\"; else echo 'SELinux is not enabled'; fi"
    expect_regex = "(?m)^(php-fpm runs as: httpd_t|SELinux is not enabled)$"
  }
}
