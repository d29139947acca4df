<div>{ list.length && list.map(i => <p/>) }</div>
