# 29-selinux-labels.hcl: the labels of 07-selinux.hcl's rules on what exists
# by now (the home, the docroot with WordPress core, the certificate).
# restorecon without -F changes only the type, so files keep their SELinux
# user and the second apply finds nothing to do.
command "selinux_site_restorecon" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "test -z \"$(restorecon -n -v ${local.home}; restorecon -R -n -v ${local.docroot} ${local.tls_dir})\""
  run     = "restorecon -v ${local.home} && restorecon -R -v ${local.docroot} ${local.tls_dir}"
}

# After `wptest seed` writes the site: its files took the docroot's type
# from the directories they were made in (the staging directory in the
# labelled home); this gives uploads their writable type at once.
site_refresh "selinux_labels" {
  when = platform.package_manager == "dnf"
  run  = "if selinuxenabled 2>/dev/null; then restorecon -R ${local.docroot}; fi"
}
