;; One lifted function exported through two inline instances (component.TestInlineInstanceExports).
(component
  (core module $m (func (export "f")))
  (core instance $i (instantiate $m))
  (func $f (canon lift (core func $i "f")))
  (instance $a (export "run" (func $f)))
  (instance $b (export "run" (func $f)))
  (export "x:y/a" (instance $a))
  (export "x:y/b" (instance $b))
  (export "z:w/a" (instance $a))
)
