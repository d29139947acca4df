export const Example = observer(() => {
  return <div>Hello World</div>
})
