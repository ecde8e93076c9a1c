# camptocamp-postfix, README
# native: same
# noop: 'myorigin']]: error: puppet failed to apply augeas[manage postfix 'myorigin']: Save failed, see debug output for details; /Augeas[manage postfix 'myorigin']: Could not evaluate: Save failed, see debug output for details
# noop: 'alias_maps']]: error: puppet failed to apply augeas[manage postfix 'alias_maps']: Save failed, see debug output for details; /Augeas[manage postfix 'alias_maps']: Could not evaluate: Save failed, see debug output for details
# noop: 'inet_interfaces']]: error: puppet failed to apply augeas[manage postfix 'inet_interfaces']: Save failed, see debug output for details; /Augeas[manage postfix 'inet_interfaces']: Could not evaluate: Save failed, see debug output for details
# noop: 'inet_protocols']]: error: puppet failed to apply augeas[manage postfix 'inet_protocols']: Save failed, see debug output for details; /Augeas[manage postfix 'inet_protocols']: Could not evaluate: Save failed, see debug output for details
class { 'postfix':
  smtp_listen => '0.0.0.0',
}
