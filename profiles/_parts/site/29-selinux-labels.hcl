# 29-selinux-labels.hcl: the labels of 07-selinux.hcl's rules on what exists
# by now (the home, the docroot with WordPress core, the certificate).
# restorecon without -F changes only the type, so files keep their SELinux
# user and the second apply finds nothing to do. A site seeded since the last
# apply has inherited the docroot's type; this puts uploads back to
# writable.
command "selinux_site_restorecon" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "test -z \"$(restorecon -n -v ${local.home}; restorecon -R -n -v ${local.docroot} ${local.tls_dir})\""
  run     = "restorecon -v ${local.home} && restorecon -R -v ${local.docroot} ${local.tls_dir}"
}
