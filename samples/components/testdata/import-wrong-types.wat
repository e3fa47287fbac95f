;; aios:sdk/log imported with other types than aios-host implements: calling it must
;; fail with an error naming the import, not a panic (component.TestImportWrongTypes).
(component
  (import "aios:sdk/log@0.1.0" (instance $l (export "log" (func (param "level" u32) (param "message" u32)))))
  (alias export $l "log" (func $c))
  (core func $cl (canon lower (func $c)))
  (core module $m (import "x" "c" (func (param i32 i32))) (func (export "f") i32.const 7 i32.const 99 call 0))
  (core instance $i (instantiate $m (with "x" (instance (export "c" (func $cl))))))
  (func (export "f") (canon lift (core func $i "f")))
)
